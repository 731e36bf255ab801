package manifest

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/napkit/napkit/api"
)

// FuzzDecode feeds random and mutated manifests to Decode. It must never panic; every error must say
// which document (or source) it is about and wrap ErrDecode, api.ErrInvalid or ErrNoObjects; every
// Set it returns must pass a second, independent strict pass (see checkSecondPass).
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
	f.Add([]byte(strings.Replace(pool, "karpenter.sh/v1", "karpenter.sh/v1beta1", 1)))
	f.Add([]byte(`[{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}]}]`))
	f.Add([]byte(deployment))
	f.Add([]byte("---\n--- # c\n{a: [}\n"))
	f.Add([]byte("\xef\xbb\xbf"))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := Decode(bytes.NewReader(data), "fuzz.yaml")
		if err != nil {
			checkError(t, err)
			return
		}
		checkSet(t, set)
		checkSecondPass(t, set)
	})
}

// deployment is a valid Deployment with one container.
const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: app
          image: nginx
          resources:
            requests: {cpu: 500m, memory: 1Gi}
`

// FuzzObjectDecode mutates one Deployment's container fields. An accepted object must decode again
// with the JSON package's strict mode alone (no locator, no cache); a refused one must name its
// position, object and the path of a field of the document.
func FuzzObjectDecode(f *testing.F) {
	f.Add("cpu", "500m", "replicas", "3")
	f.Add("cpu", "abc", "replicas", "3")
	f.Add("memory", "1.5.3Gi", "replicas", "-1")
	f.Add("nvidia.com/gpu", "1", "parallelism", "x")
	f.Add("cpu", "1e400", "replicas", "99999999999")
	f.Fuzz(func(t *testing.T, resource, quantity, key, value string) {
		doc := map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web"},
			"spec": map[string]any{key: yamlScalar(value), "template": map[string]any{"spec": map[string]any{
				"containers": []any{map[string]any{"name": "app", "resources": map[string]any{
					"requests": map[string]any{resource: yamlScalar(quantity)}}}}}}},
		}
		data, err := yaml.Marshal(doc)
		if err != nil {
			return
		}
		set, err := Decode(bytes.NewReader(data), "fuzz.yaml")
		if err != nil {
			checkError(t, err)
			var fe *api.FieldError
			if errors.As(err, &fe) && !strings.HasPrefix(fe.Field, "spec") {
				t.Fatalf("field error outside spec: %v", err)
			}
			return
		}
		checkSecondPass(t, set)
	})
}

// yamlScalar turns fuzzed text into the scalar a user would have typed: a number when it parses as
// one, else a string.
func yamlScalar(s string) any {
	var v any
	if yaml.Unmarshal([]byte(s), &v) == nil {
		switch v.(type) {
		case float64, int, int64, bool:
			return v
		}
	}
	return s
}

func checkError(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrDecode) && !errors.Is(err, api.ErrInvalid) && !errors.Is(err, ErrNoObjects) {
		t.Fatalf("error wraps neither ErrDecode, api.ErrInvalid nor ErrNoObjects: %v", err)
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if strings.HasPrefix(line, "fuzz.yaml document ") || strings.HasPrefix(line, "  ") ||
			strings.HasPrefix(line, "fuzz.yaml: "+ErrNoObjects.Error()) {
			continue // a document error, a YAML parser's continuation line, or an empty source
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

// checkSecondPass decodes every kept object again with sigs.k8s.io/json's strict mode straight from
// its JSON, independently of the Set's cached value, and requires the same object and no complaint:
// an input the reader accepted must not be one a second strict pass rejects. Typed Karpenter objects
// are written back to YAML and read again, which must succeed and give the same Set.
func checkSecondPass(t *testing.T, set *Set) {
	t.Helper()
	for _, obj := range set.Objects {
		newValue, ok := rawKinds[obj.Kind]
		if !ok {
			continue
		}
		fresh := newValue()
		strict, err := sigsjson.UnmarshalStrict(obj.JSON, fresh)
		if err != nil || len(strict) > 0 {
			t.Fatalf("%s: accepted, but a strict decode refuses it: %v %v", obj.Position, err, strict)
		}
		cached := newValue()
		if err := obj.Decode(cached); err != nil {
			t.Fatalf("%s: Decode: %v", obj.Position, err)
		}
		if !reflect.DeepEqual(fresh, cached) {
			t.Fatalf("%s: cached object differs from a fresh decode", obj.Position)
		}
	}
	var again bytes.Buffer
	for _, np := range set.NodePools {
		writeYAML(t, &again, np)
	}
	for _, nc := range set.NodeClasses {
		writeYAML(t, &again, nc)
	}
	for _, c := range set.NodeClaims {
		writeYAML(t, &again, c)
	}
	if again.Len() == 0 {
		return
	}
	second, err := Decode(&again, "second.yaml")
	if err != nil {
		t.Fatalf("accepted objects, written back, are refused: %v\n%s", err, again.String())
	}
	if len(second.NodePools) != len(set.NodePools) || len(second.NodeClasses) != len(set.NodeClasses) || len(second.NodeClaims) != len(set.NodeClaims) {
		t.Fatalf("second pass read a different number of objects")
	}
}

func writeYAML(t *testing.T, buf *bytes.Buffer, v any) {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	buf.WriteString("---\n")
	buf.Write(data)
}
