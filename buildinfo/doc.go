// Package buildinfo reports which build of napkit is running: the main module's path and version,
// the napkit library's version when the main module only depends on it, and the VCS revision the Go
// toolchain stamped into the binary (runtime/debug.ReadBuildInfo). The CLI's and the controller's
// --version print it; the container image check reads it back from the binary inside the image.
//
// Nothing here is computed or guessed: a field the toolchain did not record (a binary built with
// -buildvcs=false has no revision) stays empty and String says "unknown".
package buildinfo
