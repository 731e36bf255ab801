package manifest

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/napkit/napkit/api"
)

// FuzzDecode feeds random and mutated manifests to Decode. It must never panic; every error must say
// which document (or source) it is about and wrap ErrDecode or api.ErrInvalid; every Set it returns
// must hold valid objects, sorted by name.
func FuzzDecode(f *testing.F) {
	seed, err := os.ReadFile(seedFile)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	for _, doc := range strings.Split(string(seed), "\n---\n") {
		f.Add([]byte(doc))
	}
	f.Add([]byte(pool))
	f.Add([]byte(strings.Replace(pool, "requirements:", "requirement:", 1)))
	f.Add([]byte(`[{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}]}]`))
	f.Add([]byte("---\n--- # c\n{a: [}\n"))
	f.Add([]byte("\xef\xbb\xbf"))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := Decode(bytes.NewReader(data), "fuzz.yaml")
		if err != nil {
			checkError(t, err)
			return
		}
		checkSet(t, set)
	})
}

func checkError(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrDecode) && !errors.Is(err, api.ErrInvalid) {
		t.Fatalf("error wraps neither ErrDecode nor api.ErrInvalid: %v", err)
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if strings.HasPrefix(line, "fuzz.yaml document ") || strings.HasPrefix(line, "  ") {
			continue // a document error, or a YAML parser's continuation line
		}
		t.Fatalf("error line names no document: %q", line)
	}
}

func checkSet(t *testing.T, set *Set) {
	t.Helper()
	for i, np := range set.NodePools {
		if err := np.Validate(); err != nil {
			t.Fatalf("returned an invalid NodePool: %v", err)
		}
		if i > 0 && set.NodePools[i-1].Name >= np.Name {
			t.Fatalf("NodePools not sorted or not unique: %q then %q", set.NodePools[i-1].Name, np.Name)
		}
	}
	for _, nc := range set.NodeClasses {
		if err := nc.Validate(); err != nil {
			t.Fatalf("returned an invalid AKSNodeClass: %v", err)
		}
	}
	for _, c := range set.NodeClaims {
		if err := c.Validate(); err != nil {
			t.Fatalf("returned an invalid NodeClaim: %v", err)
		}
	}
}
