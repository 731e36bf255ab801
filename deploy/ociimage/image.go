package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	// BinaryPath is where the controller lives in the image (the Dockerfile's ENTRYPOINT).
	BinaryPath = "/napkit-controller"
	// CACertsPath is the CA bundle's path, where Go's crypto/x509 looks first on Linux.
	CACertsPath = "/etc/ssl/certs/ca-certificates.crt"
	// NonRoot is the image's user and group, distroless's "nonroot".
	NonRoot = "65532:65532"
)

// Options describe one image.
type Options struct {
	// Binary is the static controller binary (CGO_ENABLED=0); CACerts the PEM bundle to ship.
	Binary, CACerts []byte
	// Version and Revision become OCI labels; Source is the repository URL.
	Version, Revision, Source string
	// Architecture is the GOARCH the binary was built for.
	Architecture string
	// Created stamps the config; the zero time keeps the image reproducible.
	Created time.Time
}

// Build assembles the image: one layer with the base files (CA bundle, passwd, group, /tmp), one
// with the binary, and a config with the entrypoint, user and labels.
func Build(opts Options) (v1.Image, error) {
	if len(opts.Binary) == 0 || len(opts.CACerts) == 0 {
		return nil, errors.New("image: the binary and the CA bundle are required")
	}
	base, err := layer([]file{
		{path: "etc/", dir: true, mode: 0o755},
		{path: "etc/ssl/", dir: true, mode: 0o755},
		{path: "etc/ssl/certs/", dir: true, mode: 0o755},
		{path: CACertsPath[1:], data: opts.CACerts, mode: 0o644},
		{path: "etc/passwd", data: []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"), mode: 0o644},
		{path: "etc/group", data: []byte("root:x:0:\nnonroot:x:65532:\n"), mode: 0o644},
		{path: "home/", dir: true, mode: 0o755},
		{path: "home/nonroot/", dir: true, mode: 0o700, uid: 65532, gid: 65532},
		{path: "tmp/", dir: true, mode: 0o1777},
	})
	if err != nil {
		return nil, err
	}
	bin, err := layer([]file{{path: BinaryPath[1:], data: opts.Binary, mode: 0o755}})
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), base, bin)
	if err != nil {
		return nil, fmt.Errorf("image: adding layers: %w", err)
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("image: config: %w", err)
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Created = "linux", opts.Architecture, v1.Time{Time: opts.Created}
	cfg.Config.Entrypoint = []string{BinaryPath}
	cfg.Config.User = NonRoot
	cfg.Config.WorkingDir = "/"
	cfg.Config.Env = []string{"SSL_CERT_FILE=" + CACertsPath}
	cfg.Config.Labels = map[string]string{
		"org.opencontainers.image.title":    "napkit-controller",
		"org.opencontainers.image.source":   opts.Source,
		"org.opencontainers.image.version":  opts.Version,
		"org.opencontainers.image.revision": opts.Revision,
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, fmt.Errorf("image: setting config: %w", err)
	}
	return img, nil
}

// file is one tar entry.
type file struct {
	path     string
	data     []byte
	dir      bool
	mode     int64
	uid, gid int
}

// layer writes files into one uncompressed tar and wraps it as a layer (gzip on write).
func layer(files []file) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.path, Mode: f.mode, Uid: f.uid, Gid: f.gid, Format: tar.FormatPAX}
		if f.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("image: tar header %s: %w", f.path, err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, fmt.Errorf("image: tar %s: %w", f.path, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("image: closing tar: %w", err)
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// readFile reads a file a flag names, with the flag in the error.
func readFile(flagName, path string) ([]byte, error) {
	if path == "" {
		return nil, fmt.Errorf("%s is required", flagName)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flagName, err)
	}
	return data, nil
}
