package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTuneGC: the process's collector settings apply unless GOGC or GOMEMLIMIT choose otherwise.
func TestTuneGC(t *testing.T) {
	percent := debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	for _, tc := range []struct {
		name, gogc, memlimit string
		wantPercent          int
		wantLimit            int64
	}{
		{"neither set", "", "", gcPercent, gcMemoryLimit},
		{"GOGC set", "150", "", 150, gcMemoryLimit},
		{"GOMEMLIMIT set", "", "1GiB", gcPercent, 1 << 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc)
			t.Setenv("GOMEMLIMIT", tc.memlimit)
			// What the runtime read from the environment at start, here set by hand.
			debug.SetGCPercent(150)
			debug.SetMemoryLimit(1 << 30)
			tuneGC()
			got := debug.SetGCPercent(100)
			assert.Equal(t, tc.wantPercent, got)
			assert.Equal(t, tc.wantLimit, debug.SetMemoryLimit(-1))
		})
	}
}
