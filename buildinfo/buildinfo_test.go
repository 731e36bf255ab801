package buildinfo

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The inputs are the text form BuildInfo.String prints, parsed by the standard library's own parser,
// so the test does not build BuildInfo values the way FromBuildInfo reads them.
func TestFromBuildInfo(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Info
		line string
	}{
		{
			name: "examples module from a work tree, stamped",
			text: "path\tgithub.com/napkit/napkit/examples/controller\n" +
				"mod\tgithub.com/napkit/napkit/examples\t(devel)\t\n" +
				"dep\tgithub.com/napkit/napkit\tv0.0.0\t\n=>\t../\t\t\n" +
				"build\tvcs=git\nbuild\tvcs.revision=0123456789abcdef\nbuild\tvcs.time=2026-12-04T03:00:00Z\nbuild\tvcs.modified=true\n",
			want: Info{Path: "github.com/napkit/napkit/examples", Version: "(devel)", LibraryVersion: "(devel)",
				Revision: "0123456789abcdef", Time: "2026-12-04T03:00:00Z", Modified: true, GoVersion: "go1.26.8"},
			line: "github.com/napkit/napkit/examples (devel) napkit (devel) revision 0123456789abcdef (modified) committed 2026-12-04T03:00:00Z go1.26.8",
		},
		{
			name: "installed at a release, no VCS stamp",
			text: "path\tgithub.com/napkit/napkit/examples/napkit\n" +
				"mod\tgithub.com/napkit/napkit/examples\tv0.3.0\th1:abc=\n" +
				"dep\tgithub.com/napkit/napkit\tv0.3.0\th1:def=\n",
			want: Info{Path: "github.com/napkit/napkit/examples", Version: "v0.3.0", LibraryVersion: "v0.3.0", GoVersion: "go1.26.8"},
			line: "github.com/napkit/napkit/examples v0.3.0 napkit v0.3.0 revision unknown go1.26.8",
		},
		{
			name: "the library module itself is main",
			text: "path\tgithub.com/napkit/napkit\nmod\tgithub.com/napkit/napkit\tv1.2.3\t\n",
			want: Info{Path: "github.com/napkit/napkit", Version: "v1.2.3", GoVersion: "go1.26.8"},
			line: "github.com/napkit/napkit v1.2.3 revision unknown go1.26.8",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi, err := debug.ParseBuildInfo(tt.text)
			require.NoError(t, err)
			bi.GoVersion = "go1.26.8" // ParseBuildInfo leaves the toolchain line to the caller
			got := FromBuildInfo(bi)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.line, got.String())
		})
	}
}

// Read must agree with what the go command reads from the same binary (this test binary).
func TestReadMatchesGoVersionM(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	require.NoError(t, err, "the test compares with `go version -m`, so it needs the go command")
	exe, err := os.Executable()
	require.NoError(t, err)
	out, err := exec.Command(goCmd, "version", "-m", exe).Output()
	require.NoError(t, err)

	info, ok := Read()
	require.True(t, ok)
	fields := map[string][]string{}
	for _, line := range strings.Split(string(out), "\n") {
		parts := strings.Split(strings.TrimSpace(line), "\t")
		if len(parts) > 1 {
			fields[parts[0]] = parts[1:]
		}
	}
	firstLine := strings.SplitN(string(out), "\n", 2)[0]
	assert.True(t, strings.HasSuffix(firstLine, ": "+info.GoVersion), "go version -m says %q, Read says %q", firstLine, info.GoVersion)
	require.Contains(t, fields, "mod", string(out))
	assert.Equal(t, fields["mod"][0], info.Path)
	if len(fields["mod"]) > 1 {
		assert.Equal(t, fields["mod"][1], info.Version)
	}
	assert.Contains(t, Line("napkit"), "napkit "+info.Path)
}
