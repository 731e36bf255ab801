package napkit

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The library stays light: client-go, controller-runtime and Prometheus belong to the examples module.
var forbiddenImports = []string{"k8s.io/client-go", "sigs.k8s.io/controller-runtime", "github.com/prometheus/"}

func TestLibraryImportsStayLight(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "examples" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range file.Imports {
			importPath, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbiddenImports {
				assert.False(t, strings.HasPrefix(importPath, bad), "%s imports %s", path, importPath)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, checked, 50, "walked the library's Go files")
}

const (
	module   = "github.com/napkit/napkit"
	azureSDK = "github.com/Azure/azure-sdk-for-go"
)

// Layers, lowest first: a package imports only packages of its own layer or a lower one. README's
// package diagram draws this table.
var layers = []struct {
	name     string
	packages []string
}{
	{"vocabulary", []string{"api", "requirements", "buildinfo"}},
	{"catalogue", []string{"internal/azuredata", "kubeletconfig", "pricing", "instancetype", "manifest"}},
	{"decisions", []string{"provisioner", "provisioner/internal/lp", "consolidation", "imagefamily",
		"imagefamily/bootstrap", "imagefamily/internal/kubever", "kubeversion", "nodeclassstatus", "quota", "repair", "schedreplay"}},
	{"snapshot", []string{"snapshot"}},
	{"actions", []string{"launch"}},
	{"azure", []string{"instancetype/azuresku", "launch/azure", "launch/azuresim", "launch/discovery"}},
	{"root", []string{""}},
}

// sdkFree are the packages whose whole import graph stays clear of the Azure SDK: everything but the
// azure layer, so a platform can plan, and launch through its own Launcher, without linking it.
func sdkFree(layer string) bool { return layer != "azure" }

// goPackage is what `go list` says about one package of the module.
type goPackage struct {
	path    string
	imports []string
	deps    []string
}

func listPackages(t *testing.T) []goPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", "./...").Output()
	require.NoError(t, err, "go list ./...")
	var pkgs []goPackage
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		require.Len(t, parts, 3, line)
		pkgs = append(pkgs, goPackage{parts[0], strings.Fields(parts[1]), strings.Fields(parts[2])})
	}
	return pkgs
}

func layerOf(path string) (int, bool) {
	rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	for i, l := range layers {
		for _, p := range l.packages {
			if rel == p {
				return i, true
			}
		}
	}
	return 0, false
}

// TestImportLayers checks the import graph against the layer table, and that no SDK-free package
// reaches the Azure SDK through any chain of imports (go list -deps, not just direct imports).
func TestImportLayers(t *testing.T) {
	pkgs := listPackages(t)
	require.NotEmpty(t, pkgs)
	for _, p := range pkgs {
		layer, ok := layerOf(p.path)
		if !assert.True(t, ok, "%s is in no layer of imports_test.go: add it to the table and README's diagram", p.path) {
			continue
		}
		for _, imp := range p.imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			got, ok := layerOf(imp)
			assert.True(t, ok && got <= layer, "%s (%s) imports %s from a higher layer", p.path, layers[layer].name, imp)
		}
		if !sdkFree(layers[layer].name) {
			continue
		}
		for _, dep := range p.deps {
			assert.False(t, strings.HasPrefix(dep, azureSDK), "%s depends on %s", p.path, dep)
		}
	}
}

// The check catches what it is for: the azure layer does reach the SDK.
func TestImportLayersSeeTheSDK(t *testing.T) {
	for _, p := range listPackages(t) {
		if p.path != module+"/launch/azure" {
			continue
		}
		found := false
		for _, dep := range p.deps {
			found = found || strings.HasPrefix(dep, azureSDK+"/sdk/azcore")
		}
		assert.True(t, found, "launch/azure depends on azcore")
		return
	}
	t.Fatal("launch/azure not listed")
}
