package main

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/napkit/napkit/manifest"
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

// decodeBytesFactor bounds what decoding allocates per byte of input: 10,000 Pods (1.9 MB of YAML)
// allocate about 35 MB, 18 per byte, of which most stays live to the end.
const decodeBytesFactor = 32

// decodeHeadroom is added to every decoding's budget, for the catalogue built meanwhile.
const decodeHeadroom = 64 << 20

// pauseGCWhileDecoding turns the collector off while the manifest files are decoded, with a memory
// limit of decodeHeadroom plus decodeBytesFactor times their size as the bound, and returns resume,
// which starts collecting what the decoding left, beside what the command does next, and then
// restores both settings; the function resume returns waits for both. It does nothing (and its
// collection is none) when GOGC or GOMEMLIMIT is set or an input has no size known beforehand
// (standard input).
//
// Why off: a collection during the decode (the heap starts small, so one always fell in it) marked
// while the workers allocated, and write barriers and assists slowed them: 10,000 Pods read in
// 26-30 ms without it against 34-50 ms with it. What a decode allocates is bounded by its input
// (64 MiB per source at most), so the limit is never below its live data and cannot make it
// collect without end.
//
// Why collect at the end, and wait for it before planning: the first cycle after the pause is the
// one that collects the decoding's garbage. Left to the pacer, it started at once only while the
// decoding allocated more than the goal the restored settings gave; once reading 10,000 Pods
// allocated less (36 instead of 43 MB), it started inside the solve, which then ran two cycles
// instead of one, and its time depended on how much the reading had allocated. Started here, the
// cycle runs beside the snapshot, on the core it leaves idle, and the solve runs as before.
func pauseGCWhileDecoding(files manifestFiles) (resume func() (collected func())) {
	none := func() {}
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() func() { return none }
	}
	size, ok := inputBytes(files)
	if !ok {
		return func() func() { return none }
	}
	limit := debug.SetMemoryLimit(decodeHeadroom + decodeBytesFactor*size)
	percent := debug.SetGCPercent(-1)
	return func() func() {
		// One cycle, forced while the collector is still off: restoring the settings first would
		// let the pacer start one at once, which runtime.GC would wait for and then run another.
		done := make(chan struct{})
		go func() {
			runtime.GC()
			debug.SetGCPercent(percent)
			debug.SetMemoryLimit(limit)
			close(done)
		}()
		return func() { <-done }
	}
}

// inputBytes is the size of the files and of the directories' files that files names; false for
// standard input or a path that cannot be read (the decoder then reports it).
func inputBytes(files manifestFiles) (int64, bool) {
	var size int64
	for _, path := range files {
		if path == manifest.Stdin {
			return 0, false
		}
		info, err := os.Stat(path)
		if err != nil {
			return 0, false
		}
		if !info.IsDir() {
			size += info.Size()
			continue
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return 0, false
		}
		for _, e := range entries {
			if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
				size += fi.Size()
			}
		}
	}
	return size, true
}
