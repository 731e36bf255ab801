#!/usr/bin/env bash
# Runs the example controller's scale suite (examples/controller/e2e, build tags e2e,scale) on a real
# control plane, like scripts/e2e.sh. One run of TestScale is a scale-up of N pending pods from 50
# Deployments, the idle steady state, a scale-down of 80 % of the pods, and churn; see
# docs/benchmarks.md for what it reports.
#
#   scripts/scale.sh small        200 pods once: scale-up, 10 s steady state, scale-down (CI; under 4 min)
#   scripts/scale.sh full [runs]  1,000 pods then 10,000 pods, each `runs` times (default 3)
#   scripts/scale.sh up PODS [runs]  the scale-up alone of PODS pods, `runs` times (default 3)
#
# Each run appends its figures as a JSON line to $NAPKIT_SCALE_REPORT (default
# /tmp/napkit-scale-<size>.jsonl). NAPKIT_SCALE_BOOT_DELAY, NAPKIT_SCALE_STEADY and
# NAPKIT_SCALE_CHURN override the simulated boot delay and the phase lengths (Go durations);
# NAPKIT_SCALE_PHASES picks the phases after the scale-up (comma-separated steady, down, churn;
# "up" for the scale-up alone); NAPKIT_SCALE_CONTROLLER_LOG=FILE keeps
# the controller's log of the last run.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd -P)"
tools="${NAPKIT_KUBE_TOOLS:-$repo/../shared/tools}"
script="$tools/kube-apiserver-local.sh"
if [[ ! -x "$script" ]]; then
	echo "scale: $script not found or not executable; set NAPKIT_KUBE_TOOLS to the folder holding kube-apiserver-local.sh" >&2
	exit 2
fi
export NAPKIT_KUBE_TOOLS="$(cd "$tools" && pwd -P)"
# The ReplicaSet controller creates the pods; at kube-controller-manager's default 20 requests/s
# 10,000 pods would take over 8 minutes to exist, which would measure it and not the autoscaler.
export KUBE_LOCAL_CONTROLLER_MANAGER_ARGS="${KUBE_LOCAL_CONTROLLER_MANAGER_ARGS:---kube-api-qps=500 --kube-api-burst=1000}"

run() { # PODS RUNS TIMEOUT
	local i
	for ((i = 1; i <= $2; i++)); do
		local log="${TMPDIR:-/tmp}/napkit-scale-$1-$i.log"
		echo "== scale: $1 pods, run $i of $2 (report: $NAPKIT_SCALE_REPORT, full log: $log)"
		if ! (cd "$repo/examples" && NAPKIT_SCALE_PODS="$1" go test -tags e2e,scale -count=1 -timeout "$3" \
			-run '^TestScale$' -v ./controller/e2e/ >"$log" 2>&1); then
			tail -n 80 "$log"
			return 1
		fi
		grep -E '^\s+scale_|^(--- |ok)' "$log"
	done
}

"$script" build
case "${1:-}" in
small)
	export NAPKIT_SCALE_REPORT="${NAPKIT_SCALE_REPORT:-/tmp/napkit-scale-small.jsonl}"
	export NAPKIT_SCALE_PHASES="${NAPKIT_SCALE_PHASES:-steady,down}" NAPKIT_SCALE_STEADY="${NAPKIT_SCALE_STEADY:-10s}"
	run 200 1 10m
	;;
full)
	export NAPKIT_SCALE_REPORT="${NAPKIT_SCALE_REPORT:-/tmp/napkit-scale-full.jsonl}"
	runs="${2:-3}"
	run 1000 "$runs" 40m
	run 10000 "$runs" 90m
	;;
up)
	export NAPKIT_SCALE_REPORT="${NAPKIT_SCALE_REPORT:-/tmp/napkit-scale-up.jsonl}" NAPKIT_SCALE_PHASES=up
	run "${2:?usage: scripts/scale.sh up PODS [runs]}" "${3:-3}" 40m
	;;
*)
	echo "usage: scripts/scale.sh small|full [runs] | up PODS [runs]" >&2
	exit 2
	;;
esac
