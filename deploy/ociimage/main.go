package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ociimage:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ociimage", flag.ContinueOnError)
	binary := fs.String("binary", "", "static controller binary (CGO_ENABLED=0 go build ./examples/controller)")
	caCerts := fs.String("ca-certs", "/etc/ssl/certs/ca-certificates.crt", "PEM CA bundle to ship")
	layoutDir := fs.String("layout", "", "write an OCI image layout to this directory (under /tmp, never in git)")
	tarPath := fs.String("tarball", "", "also write a docker-archive tarball here")
	ref := fs.String("tag", "ghcr.io/napkit/napkit-controller:dev", "image reference recorded in the tarball and layout")
	version := fs.String("version", "dev", "org.opencontainers.image.version label")
	revision := fs.String("revision", "", "org.opencontainers.image.revision label")
	arch := fs.String("arch", runtime.GOARCH, "GOARCH of the binary")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *layoutDir == "" && *tarPath == "" {
		return fmt.Errorf("nothing to write: give --layout or --tarball")
	}
	bin, err := readFile("--binary", *binary)
	if err != nil {
		return err
	}
	ca, err := readFile("--ca-certs", *caCerts)
	if err != nil {
		return err
	}
	img, err := Build(Options{Binary: bin, CACerts: ca, Version: *version, Revision: *revision,
		Source: "https://github.com/napkit/napkit", Architecture: *arch})
	if err != nil {
		return err
	}
	tag, err := name.NewTag(*ref)
	if err != nil {
		return fmt.Errorf("--tag %q: %w", *ref, err)
	}
	if *layoutDir != "" {
		if err := writeLayout(*layoutDir, img, tag); err != nil {
			return err
		}
	}
	if *tarPath != "" {
		if err := tarball.WriteToFile(*tarPath, tag, img); err != nil {
			return fmt.Errorf("--tarball %s: %w", *tarPath, err)
		}
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s@%s\n", tag, digest)
	return err
}

// writeLayout writes img as the only image of a fresh OCI layout, annotated with its tag.
func writeLayout(dir string, img v1.Image, tag name.Tag) error {
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("--layout %s: %w", dir, err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": tag.String(),
	})); err != nil {
		return fmt.Errorf("--layout %s: %w", dir, err)
	}
	return nil
}
