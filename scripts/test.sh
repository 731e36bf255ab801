#!/usr/bin/env bash
# Runs every unit test of the library and the examples. README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -timeout 15m ./... ./examples/...
