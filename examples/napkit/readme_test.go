package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// README.md's usage line of each command lists every flag the command has (read from its -h), so
// the documentation cannot fall behind the code.
func TestREADMEListsEveryFlag(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	flagLine := regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)
	for name := range commands() {
		var stdout, stderr bytes.Buffer
		run([]string{name, "-h"}, &stdout, &stderr)
		flags := flagLine.FindAllStringSubmatch(stdout.String()+stderr.String(), -1)
		require.NotEmpty(t, flags, "%s -h lists flags", name)
		usage := usageBlock(t, string(readme), name)
		for _, f := range flags {
			documented := strings.Contains(usage, "--"+f[1]+" ") || strings.Contains(usage, "--"+f[1]+"]") ||
				strings.Contains(usage, "[-"+f[1]+" ") || (name == "bootstrap" && strings.Contains(readme2bootstrap(string(readme)), "`--"+f[1]+"`"))
			assert.True(t, documented, "README's usage of napkit %s lacks --%s", name, f[1])
		}
	}
}

// usageBlock is the code block after README's "## `napkit NAME`" heading.
func usageBlock(t *testing.T, readme, name string) string {
	t.Helper()
	_, section, found := strings.Cut(readme, "## `napkit "+name+"`\n")
	require.True(t, found, "README has a section for napkit %s", name)
	_, block, found := strings.Cut(section, "```\n")
	require.True(t, found)
	block, _, _ = strings.Cut(block, "```")
	return block
}

// readme2bootstrap is the bootstrap section, whose cluster-setting flags are in a table.
func readme2bootstrap(readme string) string {
	_, section, _ := strings.Cut(readme, "## `napkit bootstrap`\n")
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}
