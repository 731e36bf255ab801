package buildinfo_test

import (
	"fmt"
	"runtime/debug"

	"github.com/napkit/napkit/buildinfo"
)

// A binary's --version line, here from a recorded build of the controller.
func ExampleFromBuildInfo() {
	bi, err := debug.ParseBuildInfo("path\tgithub.com/napkit/napkit/examples/controller\n" +
		"mod\tgithub.com/napkit/napkit/examples\tv0.3.0\t\ndep\tgithub.com/napkit/napkit\tv0.3.0\t\n" +
		"build\tvcs.revision=8c964bd\n")
	if err != nil {
		panic(err)
	}
	bi.GoVersion = "go1.26.8"
	fmt.Println("controller", buildinfo.FromBuildInfo(bi))
	// Output: controller github.com/napkit/napkit/examples v0.3.0 napkit v0.3.0 revision 8c964bd go1.26.8
}
