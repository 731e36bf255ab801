#!/usr/bin/env bash
# Runs every unit test of the library, the examples and the deploy module (chart render, offline
# container image). README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -timeout 15m ./... ./examples/...
# The chart render test (Helm SDK) and the offline image build (go-containerregistry) live in their
# own module, outside the workspace, so Helm never reaches the library's or the examples' go.mod.
(cd deploy && GOWORK=off go test -count=1 -timeout 15m ./...)
