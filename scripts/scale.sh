#!/usr/bin/env bash
# Runs the example controller's scale suite (examples/controller/e2e, build tags e2e,scale) on a real
# control plane, like scripts/e2e.sh. One run of TestScale is a scale-up of N pending pods from 50
# Deployments, the idle steady state, a scale-down of 80 % of the pods, and churn; see
# docs/benchmarks.md for what it reports.
#
#   scripts/scale.sh small        200 pods once: scale-up, 10 s steady state, scale-down (CI; under 4 min)
#   scripts/scale.sh full [runs]  1,000 pods then 10,000 pods, each `runs` times (default 3)
#   scripts/scale.sh up PODS [runs]  the scale-up alone of PODS pods, `runs` times (default 3)
#   scripts/scale.sh steady [PODS]   the scale-up of PODS pods (default 20,000: ~2,000 nodes), then the
#                                    idle steady state, the controller binary in its own process
#
# Each run appends its figures as a JSON line to $NAPKIT_SCALE_REPORT (default
# /tmp/napkit-scale-<size>.jsonl). NAPKIT_SCALE_BOOT_DELAY, NAPKIT_SCALE_VM_CREATE, NAPKIT_SCALE_STEADY
# and NAPKIT_SCALE_CHURN override the simulated boot delay, the simulated Azure's VM create time (its
# long-running operation; default 0, the boot starts when it succeeds) and the phase lengths (Go durations);
# NAPKIT_SCALE_ARM_LIMITS=true throttles the simulated Azure with ARM's subscription token buckets
# (reads 250 at 25/s, writes and deletes 200 at 10/s), the launcher polling at its default 3 s;
# NAPKIT_SCALE_PROVISION_MODE=aksmachineapi|aksmachineapiheaderbatch launches AKS Machines instead of
# a NIC and a VM per node (the controller's --provision-mode; the controller in the test process only);
# NAPKIT_SCALE_SYSTEM_NODE=false starts the cluster with no node at all (default: one tainted
# system node, as AKS's system pool; examples/controller/e2e/scale_system_test.go);
# NAPKIT_SCALE_PHASES picks the phases after the scale-up (comma-separated steady, down, churn;
# "up" for the scale-up alone); NAPKIT_SCALE_CONTROLLER_ARGS adds flags to the controller binary
# when it runs in its own process (e.g. --memory-limit=1Gi, as the chart passes); NAPKIT_SCALE_CONTROLLER_LOG=FILE keeps
# the controller's log of the last run. NAPKIT_SCALE_SCHEDULER_QPS and NAPKIT_SCALE_SCHEDULER_BURST
# set kube-scheduler's client rate limit (clientConnection qps/burst; unset: its defaults, 50/100).
# NAPKIT_SCALE_PLAN_FOR_SCHEDULER=true|false sets the controller's Config.PlanForScheduler.
# NAPKIT_SCALE_NOMINATE_PODS=off|all|constrained|replanned|predicted sets its Config.NominatePods (--nominate-pods),
# NAPKIT_SCALE_NOMINATE_MAX_UNBOUND=N its Config.NominateMaxUnbound (--nominate-max-unbound),
# NAPKIT_SCALE_NOMINATE_MAX_PENDING=N its Config.NominateMaxPending (--nominate-max-pending),
# NAPKIT_SCALE_MARK_UNNEEDED=true|false its Config.MarkUnneeded (--mark-unneeded-nodes, default false),
# NAPKIT_SCALE_ALLOW_MANY_TO_MANY=true|false its Config.Consolidation.AllowManyToMany
# (--consolidation-allow-many-to-many, default false),
# NAPKIT_SCALE_DISRUPTION_CHAIN_STEPS=N its Config.DisruptionChainSteps (negative: no chain).
# NAPKIT_SCALE_DISRUPTION_INTERVAL and NAPKIT_SCALE_VALIDATION_DELAY (Go durations) set its disruption
# interval and validation delay (default 5s each, half of Karpenter's; 10s and 15s are the binary's defaults).
# NAPKIT_SCALE_AUDIT=FILE writes kube-apiserver's audit log of the admin user's writes (the
# controller's, the simulated kubelets' and the suite's; tell them apart by userAgent) to FILE, for
# the controller's writes by verb and resource. NAPKIT_SCALE_CONTROLLER=process runs the controller binary in
# its own process (so its RSS, CPU and heap are its alone), NAPKIT_SCALE_HEAP_PROFILE=FILE then keeps
# its heap profile and NAPKIT_SCALE_COMPARE_BINARY=BIN measures it again restarted from BIN and from
# this tree (docs/benchmarks.md).
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

# scheduler_client_limit makes kube-scheduler run with clientConnection qps/burst of its own.
# The shared script writes kube-scheduler's --config (its state dir's kubeconfig, no leader
# election) and ignores --kube-api-qps with it (kube-scheduler only applies that flag without
# --config), so a wrapper set as KUBE_LOCAL_SCHEDULER copies the config it is given with the two
# fields added and passes the copy as a second --config, which wins (pflag keeps the last value;
# the suite's TestScale reads the limit back from kube-scheduler's /configz).
scheduler_client_limit() {
	local qps="${NAPKIT_SCALE_SCHEDULER_QPS:-}" burst="${NAPKIT_SCALE_SCHEDULER_BURST:-}"
	if [[ -z "$qps$burst" ]]; then return 0; fi
	local real="${KUBE_LOCAL_SCHEDULER:-${KUBE_LOCAL_BIN:-$HOME/.cache/kube-local/bin}/kube-scheduler}"
	local wrapper="${TMPDIR:-/tmp}/napkit-scale-kube-scheduler-$$"
	cat >"$wrapper" <<-EOF
		#!/usr/bin/env bash
		# Written by napkit's scripts/scale.sh: kube-scheduler with clientConnection qps ${qps:-50}, burst ${burst:-100}.
		cfg=""
		for a in "\$@"; do [[ "\$a" == --config=* ]] && cfg="\${a#--config=}"; done
		if [[ -z "\$cfg" ]]; then exec "$real" "\$@"; fi
		sed -e 's/^clientConnection:\$/clientConnection:\n  qps: ${qps:-50}\n  burst: ${burst:-100}/' "\$cfg" >"\$cfg.scale.yaml"
		exec "$real" "\$@" --config="\$cfg.scale.yaml"
	EOF
	chmod +x "$wrapper"
	export KUBE_LOCAL_SCHEDULER="$wrapper"
	# Expanded now: the trap runs after this function's locals are gone (set -u would fail it).
	trap "rm -f '$wrapper'" EXIT
	echo "== scale: kube-scheduler client qps ${qps:-50}, burst ${burst:-100} (through $wrapper)"
}

# audit_writes sets kube-apiserver's audit flags for NAPKIT_SCALE_AUDIT: metadata only, writes of
# kube-local-admin only (the user of the admin kubeconfig the suite's clients use), so that the log
# costs the API server little.
audit_writes() {
	local file="${NAPKIT_SCALE_AUDIT:-}"
	if [[ -z "$file" ]]; then return 0; fi
	local policy="$file.policy.yaml"
	cat >"$policy" <<-EOF
		apiVersion: audit.k8s.io/v1
		kind: Policy
		omitStages: [RequestReceived]
		rules:
		- level: Metadata
		  users: [kube-local-admin]
		  verbs: [create, update, patch, delete, deletecollection]
		- level: None
	EOF
	export KUBE_LOCAL_APISERVER_ARGS="${KUBE_LOCAL_APISERVER_ARGS:-} --audit-policy-file=$policy --audit-log-path=$file"
	echo "== scale: audit log of the admin user's writes in $file"
}

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
scheduler_client_limit
audit_writes
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
steady)
	export NAPKIT_SCALE_REPORT="${NAPKIT_SCALE_REPORT:-/tmp/napkit-scale-steady.jsonl}" NAPKIT_SCALE_PHASES=steady
	export NAPKIT_SCALE_CONTROLLER="${NAPKIT_SCALE_CONTROLLER:-process}" NAPKIT_SCALE_STEADY="${NAPKIT_SCALE_STEADY:-60s}"
	run "${2:-20000}" 1 75m
	;;
*)
	echo "usage: scripts/scale.sh small|full [runs] | up PODS [runs] | steady [PODS]" >&2
	exit 2
	;;
esac
