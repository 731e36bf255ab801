package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The offline image is the one the repository's Dockerfile describes: the same entrypoint, user
// and labels, so that `docker build` and this tool cannot drift apart.
func TestDockerfileMatchesTheOfflineImage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	require.NoError(t, err)
	df := string(data)
	for _, tt := range []struct {
		name, pattern, want string
	}{
		{name: "ENTRYPOINT", pattern: `(?m)^ENTRYPOINT \["([^"]+)"\]$`, want: BinaryPath},
		{name: "USER", pattern: `(?m)^USER (\S+)$`, want: NonRoot},
		{name: "binary copied to the entrypoint", pattern: `(?m)^COPY --from=build \S+ (\S+)$`, want: BinaryPath},
	} {
		m := regexp.MustCompile(tt.pattern).FindStringSubmatch(df)
		require.NotNil(t, m, "the Dockerfile has no %s", tt.name)
		assert.Equal(t, tt.want, m[1], tt.name)
	}
	for _, label := range []string{"org.opencontainers.image.version", "org.opencontainers.image.revision", "org.opencontainers.image.source", "org.opencontainers.image.title"} {
		assert.Contains(t, df, label+"=", "the Dockerfile sets the label the offline image sets")
	}
	assert.Contains(t, df, "CGO_ENABLED=0", "a static binary, as the offline build")
}
