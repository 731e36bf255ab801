#!/usr/bin/env bash
# Runs the end-to-end suite of the example controller on a real control plane (etcd, kube-apiserver,
# kube-scheduler, kube-controller-manager) started on loopback by kube-apiserver-local.sh.
#
# The first run builds those binaries from Go modules (7-20 min on 2 cores) into
# $HOME/.cache/kube-local/bin (or $KUBE_LOCAL_BIN); later runs reuse them and the suite takes a few
# minutes. Extra arguments go to `go test` (e.g. -run Walkthrough -v).
#
# NAPKIT_KUBE_TOOLS names the folder holding kube-apiserver-local.sh; by default the shared tools
# folder beside the repository, ../shared/tools.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd -P)"
tools="${NAPKIT_KUBE_TOOLS:-$repo/../shared/tools}"
script="$tools/kube-apiserver-local.sh"
if [[ ! -x "$script" ]]; then
	echo "e2e: $script not found or not executable; set NAPKIT_KUBE_TOOLS to the folder holding kube-apiserver-local.sh" >&2
	exit 2
fi
export NAPKIT_KUBE_TOOLS="$(cd "$tools" && pwd -P)"

# Build (or find cached) binaries before the tests, so no test's timeout covers a cold build.
"$script" build

cd "$repo/examples"
exec go test -tags e2e -count=1 -timeout 30m "$@" ./controller/e2e/...
