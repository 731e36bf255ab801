package napkit

import (
	"go/parser"
	"go/token"
	"io/fs"
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
