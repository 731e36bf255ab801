#!/usr/bin/env bash
# Prints the packages that run goroutines, for `go test -race`.
cd "$(dirname "$0")/.."
echo ./pricing/... ./launch/...
