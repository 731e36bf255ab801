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
