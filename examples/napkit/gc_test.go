package main

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/manifest"
)

// TestRelaxGCWhileReading: the reading setting applies unless GOGC chooses one, and restore puts
// back what was there.
func TestRelaxGCWhileReading(t *testing.T) {
	for _, tc := range []struct {
		name, gogc string
		reading    int
	}{
		{"GOGC unset", "", readingGCPercent},
		{"GOGC set", "150", 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc)
			defer debug.SetGCPercent(debug.SetGCPercent(150)) // what the runtime read at start
			restore := relaxGCWhileReading()
			assert.Equal(t, tc.reading, currentGCPercent())
			restore()
			assert.Equal(t, 150, currentGCPercent())
		})
	}
}

func gcCycles() uint32 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.NumGC
}

func currentGCPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestPauseGCWhileDecoding: the collector is off with a limit of the headroom plus the factor times
// the input's size (files, and the files of directories), unless GOGC or GOMEMLIMIT chooses, or
// standard input or a missing path leaves the size unknown; resume puts back both settings.
func TestPauseGCWhileDecoding(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.yaml")
	require.NoError(t, os.WriteFile(one, make([]byte, 1000), 0o600))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o700))
	for _, name := range []string{"a.yaml", "b.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(sub, name), make([]byte, 500), 0o600))
	}
	const percent, limit = 150, int64(1) << 40
	tests := []struct {
		name, env, value string
		files            manifestFiles
		wantLimit        int64 // 0: nothing changes
	}{
		{"a file and a directory", "", "", manifestFiles{one, sub}, decodeHeadroom + decodeBytesFactor*2000},
		{"GOGC set", "GOGC", "200", manifestFiles{one}, 0},
		{"GOMEMLIMIT set", "GOMEMLIMIT", "1GiB", manifestFiles{one}, 0},
		{"standard input", "", "", manifestFiles{one, manifest.Stdin}, 0},
		{"missing file", "", "", manifestFiles{filepath.Join(dir, "none.yaml")}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			if tt.env != "" {
				t.Setenv(tt.env, tt.value)
			}
			defer debug.SetGCPercent(debug.SetGCPercent(percent))
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
			runtime.GC() // no cycle under way: the count below is the pause's own
			resume := pauseGCWhileDecoding(tt.files)
			if tt.wantLimit == 0 {
				assert.Equal(t, percent, currentGCPercent())
				assert.Equal(t, limit, debug.SetMemoryLimit(-1))
			} else {
				assert.Equal(t, -1, currentGCPercent(), "collector off")
				assert.Equal(t, tt.wantLimit, debug.SetMemoryLimit(-1))
			}
			cycles := gcCycles()
			resume()()
			assert.Equal(t, percent, currentGCPercent())
			assert.Equal(t, limit, debug.SetMemoryLimit(-1))
			if tt.wantLimit != 0 {
				assert.Equal(t, cycles+1, gcCycles(), "one cycle collects the decoding's garbage before collected returns")
			}
		})
	}
}
