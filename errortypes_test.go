package napkit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errorTypes are the library's error types, each with why it is not a second bad-input type: bad input
// is reported as *api.FieldError, whose Kind keeps the package's class. A new error type must be added
// here with its reason, or be an api.FieldError instead.
var errorTypes = map[string]string{
	"api.FieldError":                 "the one bad-input error",
	"api.ValidationError":            "a list of *api.FieldError for one object (every problem at once)",
	"api.invalidClass":               "the sentinel of a package's class (api.InvalidClass), not an error value",
	"manifest.DocumentError":         "a position (file, document, line, object) around a FieldError or a decode error",
	"pricing.ParseError":             "a position (line, column) in a price table around its cause",
	"pricing.StatusError":            "an HTTP answer of the Retail Prices API",
	"requirements.IncompatibleError": "the outcome of a compatibility check between valid requirements, not bad input",
	"launch.LaunchError":             "a cloud's refusal of a launch",
	"launch/azure.machineBatchError": "an AKS Machine API batch answer",
	"launch/azuresim.connectionLost": "the simulated crash of the controller",
}

// fieldErrorMembers are struct fields that mark a field error: a type outside api with one of them
// and an Error method duplicates api.FieldError, whatever errorTypes says about it.
var fieldErrorMembers = []string{"Field", "Option"}

// errorType is one type with an Error() string method.
type errorType struct {
	name   string // "pkgdir.Type"
	fields []string
}

func TestOneBadInputErrorType(t *testing.T) {
	found := scanErrorTypes(t, ".")
	require.NotEmpty(t, found)
	names := map[string]bool{}
	for _, et := range found {
		names[et.name] = true
		if _, ok := errorTypes[et.name]; !ok {
			t.Errorf("%s is an error type of its own: report bad input as *api.FieldError (with the package's class as Kind), "+
				"or list %s in errorTypes with why it is not bad input", et.name, et.name)
		}
		if strings.HasPrefix(et.name, "api.") {
			continue
		}
		for _, f := range et.fields {
			assert.False(t, slices.Contains(fieldErrorMembers, f), "%s has a %s field: it duplicates api.FieldError", et.name, f)
		}
	}
	for name := range errorTypes {
		assert.True(t, names[name], "errorTypes lists %s, which no longer exists", name)
	}
}

// The scan catches what it is for: a package's own field error (the kind this rule removed).
func TestErrorTypeScanFindsDuplicates(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "provisioner")
	require.NoError(t, mkdirWrite(pkg, "errors.go", `package provisioner

type InputError struct {
	Object, Field string
	Err           error
}

func (e *InputError) Error() string { return e.Object }

type notAnError struct{ Field string }
`))
	found := scanErrorTypes(t, dir)
	require.Len(t, found, 1)
	assert.Equal(t, "provisioner.InputError", found[0].name)
	assert.Equal(t, []string{"Object", "Field", "Err"}, found[0].fields)
	assert.NotContains(t, errorTypes, found[0].name)
}

func mkdirWrite(dir, name, text string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600)
}

// scanErrorTypes parses every non-test Go file of the library under root (examples excluded: they
// are programs, not the library) and returns the types that have an Error() string method.
func scanErrorTypes(t *testing.T, root string) []errorType {
	t.Helper()
	fset := token.NewFileSet()
	structs := map[string][]string{}
	var withError []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "examples" || d.Name() == "deploy" || d.Name() == "testdata" ||
			strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		prefix := filepath.ToSlash(rel) + "."
		if rel == "." {
			prefix = "napkit."
		}
		collectStructs(file, prefix, structs)
		withError = append(withError, errorMethods(file, prefix)...)
		return nil
	})
	require.NoError(t, err)
	slices.Sort(withError)
	out := make([]errorType, 0, len(withError))
	for _, name := range slices.Compact(withError) {
		out = append(out, errorType{name: name, fields: structs[name]})
	}
	return out
}

// collectStructs records each struct type's field names.
func collectStructs(file *ast.File, prefix string, structs map[string][]string) {
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.TYPE {
			continue
		}
		for _, spec := range gen.Specs {
			ts := spec.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				structs[prefix+ts.Name.Name] = nil
				continue
			}
			var names []string
			for _, f := range st.Fields.List {
				for _, n := range f.Names {
					names = append(names, n.Name)
				}
			}
			structs[prefix+ts.Name.Name] = names
		}
	}
}

// errorMethods returns the receiver types of methods Error() string.
func errorMethods(file *ast.File, prefix string) []string {
	var out []string
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || fn.Name.Name != "Error" || fn.Type.Params.NumFields() != 0 ||
			fn.Type.Results.NumFields() != 1 {
			continue
		}
		if res, ok := fn.Type.Results.List[0].Type.(*ast.Ident); !ok || res.Name != "string" {
			continue
		}
		recv := fn.Recv.List[0].Type
		if star, ok := recv.(*ast.StarExpr); ok {
			recv = star.X
		}
		if id, ok := recv.(*ast.Ident); ok {
			out = append(out, prefix+id.Name)
		}
	}
	return out
}
