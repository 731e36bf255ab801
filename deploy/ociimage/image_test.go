package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestImage builds the controller as the Dockerfile does (static, CGO_ENABLED=0), assembles the
// image with the tool, reads it back from the OCI layout and the tarball (go-containerregistry's
// readers, not the values Build used), checks the config and the files, then extracts the binary
// from the flattened image and runs its --version.
func TestImage(t *testing.T) {
	tmp := t.TempDir()
	binary := filepath.Join(tmp, "napkit-controller")
	build := exec.Command("go", "build", "-o", binary, "./controller")
	build.Dir = filepath.Join("..", "..", "examples")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building the controller: %s", out)

	layoutDir, tarPath := filepath.Join(tmp, "layout"), filepath.Join(tmp, "image.tar")
	var stdout bytes.Buffer
	require.NoError(t, run([]string{"--binary", binary, "--layout", layoutDir, "--tarball", tarPath,
		"--version", "v0.1.0", "--revision", "8c964bd", "--tag", "example.io/napkit/controller:v0.1.0"}, &stdout))
	assert.Regexp(t, `^example.io/napkit/controller:v0.1.0@sha256:[0-9a-f]{64}\n$`, stdout.String())

	p, err := layout.FromPath(layoutDir)
	require.NoError(t, err)
	index, err := p.ImageIndex()
	require.NoError(t, err)
	manifest, err := index.IndexManifest()
	require.NoError(t, err)
	require.Len(t, manifest.Manifests, 1)
	assert.Equal(t, "example.io/napkit/controller:v0.1.0", manifest.Manifests[0].Annotations["org.opencontainers.image.ref.name"])
	img, err := p.Image(manifest.Manifests[0].Digest)
	require.NoError(t, err)
	fromTar, err := tarball.ImageFromPath(tarPath, nil)
	require.NoError(t, err)
	// A docker-archive tarball rebuilds a docker-format manifest, so compare the config, which
	// names every layer by its diff ID.
	c1, err := img.ConfigName()
	require.NoError(t, err)
	c2, err := fromTar.ConfigName()
	require.NoError(t, err)
	assert.Equal(t, c1, c2, "the layout and the tarball hold the same image")

	cfg, err := img.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, []string{"/napkit-controller"}, cfg.Config.Entrypoint)
	assert.Empty(t, cfg.Config.Cmd)
	assert.Equal(t, "65532:65532", cfg.Config.User)
	assert.Equal(t, "linux", cfg.OS)
	assert.Equal(t, map[string]string{
		"org.opencontainers.image.title": "napkit-controller", "org.opencontainers.image.source": "https://github.com/napkit/napkit",
		"org.opencontainers.image.version": "v0.1.0", "org.opencontainers.image.revision": "8c964bd",
	}, cfg.Config.Labels)

	files := extract(t, img, tmp)
	assert.Contains(t, files, "etc/ssl/certs/ca-certificates.crt")
	assert.Contains(t, files, "etc/passwd")
	for _, shell := range []string{"bin/sh", "bin/bash", "bin/busybox", "usr/bin/sh"} {
		assert.NotContains(t, files, shell, "no shell in the image")
	}
	passwd, err := os.ReadFile(filepath.Join(tmp, "rootfs", "etc", "passwd"))
	require.NoError(t, err)
	assert.Contains(t, string(passwd), "nonroot:x:65532:65532:")

	extracted := filepath.Join(tmp, "rootfs", "napkit-controller")
	version, err := exec.Command(extracted, "--version").Output()
	require.NoError(t, err, "the image's binary runs --version")
	assert.True(t, strings.HasPrefix(string(version), "napkit-controller github.com/napkit/napkit/examples "), "got %q", version)
	info, err := exec.Command("go", "version", "-m", extracted).Output()
	require.NoError(t, err)
	assert.Contains(t, string(info), "CGO_ENABLED=0", "the binary is static")
}

// extract writes the flattened filesystem (mutate.Extract, what a runtime unpacks) under
// dir/rootfs and returns the paths it holds.
func extract(t *testing.T, img v1.Image, dir string) map[string]bool {
	t.Helper()
	root := filepath.Join(dir, "rootfs")
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	files := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		require.NoError(t, err)
		name := strings.TrimPrefix(filepath.Clean(h.Name), "/")
		files[name] = true
		target := filepath.Join(root, name)
		require.True(t, strings.HasPrefix(target, root+string(filepath.Separator)), "entry %q stays in the root", h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			require.NoError(t, os.MkdirAll(target, 0o755))
		case tar.TypeReg:
			require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o777)
			require.NoError(t, err)
			_, err = io.Copy(f, tr)
			require.NoError(t, err)
			require.NoError(t, f.Close())
		default:
			t.Fatalf("unexpected entry %s of type %c", h.Name, h.Typeflag)
		}
	}
}

// The Dockerfile and the offline build describe the same image: entrypoint, user and label keys.
func TestDockerfileMatchesOfflineImage(t *testing.T) {
	dockerfile, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	require.NoError(t, err)
	img, err := Build(Options{Binary: []byte("bin"), CACerts: []byte("ca"), Version: "v", Revision: "r", Architecture: "amd64"})
	require.NoError(t, err)
	cfg, err := img.ConfigFile()
	require.NoError(t, err)
	text := string(dockerfile)
	assert.Contains(t, text, "USER "+cfg.Config.User+"\n")
	assert.Contains(t, text, `ENTRYPOINT ["`+cfg.Config.Entrypoint[0]+`"]`)
	assert.Contains(t, text, "COPY --from=build /out/napkit-controller "+BinaryPath+"\n")
	assert.Contains(t, text, "CGO_ENABLED=0 go build")
	assert.Contains(t, text, "FROM gcr.io/distroless/static-debian12:nonroot", "distroless static: CA certificates, user 65532, no shell")
	for key := range cfg.Config.Labels {
		assert.Contains(t, text, key+"=", "the Dockerfile sets label %s", key)
	}
}

func TestRunNamesTheMissingInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{args: []string{"--layout", "/tmp/x"}, want: "--binary is required"},
		{args: []string{"--binary", "/nonexistent/bin", "--layout", "/tmp/x"}, want: "--binary: open /nonexistent/bin"},
		{args: []string{"--binary", "image.go"}, want: "nothing to write: give --layout or --tarball"},
		{args: []string{"--binary", "image.go", "--ca-certs", "/nonexistent/ca", "--layout", "/tmp/x"}, want: "--ca-certs: open /nonexistent/ca"},
	}
	for _, tt := range tests {
		err := run(tt.args, io.Discard)
		require.Error(t, err, tt.args)
		assert.Contains(t, err.Error(), tt.want)
	}
}
