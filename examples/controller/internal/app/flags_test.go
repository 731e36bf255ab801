package app

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/flags.golden from the registered flags")

// testdata/flags.golden lists every flag the controller registers. The chart's render test
// (deploy/chartrender) reads it to check that the chart has a value for each flag, so the list is
// derived from Register, never kept by hand.
func TestFlagsGolden(t *testing.T) {
	fs := flag.NewFlagSet("controller", flag.ContinueOnError)
	var f Flags
	f.Register(fs)
	var names []string
	fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
	got := strings.Join(names, "\n") + "\n"
	path := filepath.Join("testdata", "flags.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -run TestFlagsGolden -update")
	assert.Equal(t, string(want), got, "flags changed: run go test -run TestFlagsGolden -update, then give the chart a value for each new flag")
}

// TestCheckNumbers: the numeric flags out of range are ConfigErrors naming the flag and value.
func TestCheckNumbers(t *testing.T) {
	valid := func() *Flags { return &Flags{KubeAPIQPS: 200, KubeAPIBurst: 300, MinReplaceSavings: 0.1} }
	tests := []struct {
		name   string
		change func(*Flags)
		want   string
	}{
		{"defaults", func(*Flags) {}, ""},
		{"zero savings: Karpenter's rule", func(f *Flags) { f.MinReplaceSavings = 0 }, ""},
		{"qps", func(f *Flags) { f.KubeAPIQPS = 0 }, "--kube-api-qps"},
		{"burst", func(f *Flags) { f.KubeAPIBurst = -1 }, "--kube-api-burst"},
		{"savings 1", func(f *Flags) { f.MinReplaceSavings = 1 }, `--consolidation-min-replace-savings "1": must be a fraction in [0, 1)`},
		{"savings negative", func(f *Flags) { f.MinReplaceSavings = -0.5 }, "--consolidation-min-replace-savings"},
		{"launches zero: the default", func(f *Flags) { f.MaxConcurrentLaunches = 0 }, ""},
		{"launches negative", func(f *Flags) { f.MaxConcurrentLaunches = -1 }, `--max-concurrent-launches "-1": must not be negative`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := valid()
			tc.change(f)
			err := checkNumbers(f)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.True(t, IsConfigError(err), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
