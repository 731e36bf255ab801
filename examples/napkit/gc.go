package main

import (
	"os"
	"runtime/debug"
)

// readingGCPercent is the collector setting while a command reads its manifests and takes its
// snapshot, unless GOGC sets one: the heap may grow to five times the live data between collections
// instead of twice.
//
// Why: reading 10,000 pods makes short-lived garbage (YAML, JSON, trees) next to data that stays
// live to the end, and with the default a third of the CPU outside the solve went to collections
// that freed little. Why only while reading: the solve then runs as it always did, and a memory
// limit, the other way to bound a larger GOGC, made inputs whose data exceeds it collect without
// end (250,000 replicas: 3 times slower at a 512 MiB limit); reading makes little garbage for a
// large expansion, so the peak stays where it was (see docs/benchmarks.md, issue 17).
const readingGCPercent = 400

// relaxGCWhileReading applies readingGCPercent unless GOGC is set, and returns the function that
// restores the previous setting, which the command calls once its snapshot is taken.
func relaxGCWhileReading() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	previous := debug.SetGCPercent(readingGCPercent)
	return func() { debug.SetGCPercent(previous) }
}
