// Command ociimage assembles napkit's controller image offline, without a container daemon or a
// registry: the same image the repository's Dockerfile describes (a static binary at
// /napkit-controller, user 65532, CA certificates, no shell), written as an OCI image layout and,
// optionally, a docker-archive tarball that `docker load` or `crane push` accept. It uses
// go-containerregistry, the library ko is built on.
//
//	CGO_ENABLED=0 go build -o /tmp/napkit-controller ./examples/controller
//	cd deploy && GOWORK=off go run ./ociimage --binary /tmp/napkit-controller --layout /tmp/napkit-image
//
// Outputs belong under /tmp, never in the repository.
package main
