package app

import (
	"io"
	"log/slog"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestApplyMemoryLimit: the GC's soft limit becomes 90 % of the container's; no limit leaves the
// runtime's; a limit that is not a positive quantity is a ConfigError naming the flag.
func TestApplyMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1) // -1 reads without changing
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		name, limit string
		want        int64 // the runtime's limit afterwards
		err         string
	}{
		{name: "none", limit: "", want: before},
		{name: "1Gi", limit: "1Gi", want: 966367641},
		{name: "bytes", limit: "1000000000", want: 900000000},
		{name: "zero", limit: "0", want: before, err: `--memory-limit "0": must be a positive quantity such as 1Gi`},
		{name: "not a quantity", limit: "lots", want: before, err: `--memory-limit "lots"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetMemoryLimit(before)
			_, err := applyMemoryLimit(tc.limit, log)
			if tc.err != "" {
				require.True(t, IsConfigError(err), "%v", err)
				assert.Contains(t, err.Error(), tc.err)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.want, debug.SetMemoryLimit(-1))
		})
	}
}
