package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// LibraryPath is the napkit library's module path.
const LibraryPath = "github.com/napkit/napkit"

// Info is what the toolchain recorded about one binary.
type Info struct {
	// Path and Version are the main module's (Version is "(devel)" for a build from a checkout
	// without a VCS stamp, a semantic or pseudo-version otherwise).
	Path    string `json:"path"`
	Version string `json:"version"`
	// LibraryVersion is the napkit library's version when the main module is another module that
	// requires it (the examples module); empty when the main module is the library itself.
	LibraryVersion string `json:"libraryVersion,omitempty"`
	// Revision, Time and Modified are the VCS stamp (vcs.revision, vcs.time, vcs.modified).
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"goVersion"`
}

// Read returns the running binary's build information, or an Info with only GoVersion unknown and
// ok false when the binary carries none (built without module support).
func Read() (Info, bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{}, false
	}
	return FromBuildInfo(bi), true
}

// FromBuildInfo extracts Info from the toolchain's record.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{Path: bi.Main.Path, Version: bi.Main.Version, GoVersion: bi.GoVersion}
	if info.Path != LibraryPath {
		for _, dep := range bi.Deps {
			if dep.Path == LibraryPath {
				info.LibraryVersion = moduleVersion(dep)
			}
		}
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// moduleVersion is dep's version, or its replacement's when it is replaced (a go.work or a
// replace directive pointing at a directory has no version: "(devel)").
func moduleVersion(dep *debug.Module) string {
	if dep.Replace != nil {
		if dep.Replace.Version == "" {
			return "(devel)"
		}
		return dep.Replace.Version
	}
	return dep.Version
}

// String is the one line --version prints, e.g.
// "napkit-controller github.com/napkit/napkit/examples (devel) napkit (devel) revision 1a2b3c4d (modified) go1.26.8".
func (i Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", i.Path, orUnknown(i.Version))
	if i.LibraryVersion != "" {
		fmt.Fprintf(&b, " napkit %s", i.LibraryVersion)
	}
	fmt.Fprintf(&b, " revision %s", orUnknown(i.Revision))
	if i.Modified {
		b.WriteString(" (modified)")
	}
	if i.Time != "" {
		fmt.Fprintf(&b, " committed %s", i.Time)
	}
	fmt.Fprintf(&b, " %s", orUnknown(i.GoVersion))
	return b.String()
}

// Line is the --version output of the named program: its name, then String, or a line saying the
// binary has no build information.
func Line(program string) string {
	info, ok := Read()
	if !ok {
		return program + " (no build information in this binary)"
	}
	return program + " " + info.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
