package manifest

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// TestFastYAML checks the fast converter on the forms it takes and on forms it must leave to
// sigs.k8s.io/yaml; where it converts, the JSON must be the same bytes.
func TestFastYAML(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		fast     bool
	}{
		{"pod", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx:1.25\n    resources:\n      requests: {cpu: 100m}\n", false},
		{"block pod", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p # the name\n  labels:\n    app.kubernetes.io/name: 'it''s'\nspec:\n  containers:\n    - name: c\n      args: []\n      ports:\n        - containerPort: 8080\n      resources:\n        requests:\n          cpu: 1500m\n          memory: 1.5Gi\n        limits: {}\n", true},
		{"indentless and nested sequences", "a:\n- - x\n  - -1\n-\n- b: \"q\"\n  c: true\n", true},
		{"characters JSON escapes", "a: 'x\"y\\z<>&'\nb: a<b&c\n\"k<\": 1\n", true},
		{"yaml 1.1 words", "a: yes\nb: off\nc: ~\nd: null\ne:\n", true},
		{"float", "a: 1.5\n", false},
		{"key longer than YAML allows", strings.Repeat("k", 1100) + ": 1\n", false},
		{"long key", strings.Repeat("k", 500) + ": 1\n", true},
		{"octal", "a: 010\n", false},
		{"key that is a word", "on: 1\n", false},
		{"key that is a number", "1: a\n", false},
		{"duplicate key", "a: 1\na: 2\n", false},
		{"anchor", "a: &x 1\nb: *x\n", false},
		{"block scalar", "a: |\n  x\n", false},
		{"multi-line plain", "a: x\n  y\n", false},
		{"escape", "a: \"\\u0041\"\n", false},
		{"tab", "a:\t1\n", false},
		{"crlf", "a: 1\r\n", false},
		{"non-ascii", "a: é\n", false},
		{"flow", "a: [1, 2]\n", false},
		{"not a mapping", "- a\n", false},
		{"timestamp", "a: 2001-12-14\n", false},
		{"mapping value in value", "a: b: c\n", false},
		{"comment after quote", "a: 'b' # c\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, ok := fastYAMLToJSON([]byte(tc.in))
			require.Equal(t, tc.fast, ok, "%s", got)
			if ok {
				want, err := yaml.YAMLToJSONStrict([]byte(tc.in))
				require.NoError(t, err)
				assert.Equal(t, string(want), string(got))
			}
		})
	}
}

// TestFastYAMLSeed: every document of the seed manifests converts to the same JSON either way.
func TestFastYAMLSeed(t *testing.T) {
	data, err := os.ReadFile(seedFile)
	require.NoError(t, err)
	fast := 0
	for _, doc := range splitYAML(data) {
		got, _, ok := fastYAMLToJSON(doc.data)
		if !ok {
			continue
		}
		fast++
		want, err := yaml.YAMLToJSONStrict(doc.data)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
	assert.Positive(t, fast)
}

// FuzzFastYAML: whatever the fast converter takes, sigs.k8s.io/yaml takes too and gives the same
// JSON, so the fast path never changes a result or hides an error.
func FuzzFastYAML(f *testing.F) {
	seed, err := os.ReadFile(seedFile)
	if err != nil {
		f.Fatal(err)
	}
	for _, doc := range strings.Split(string(seed), "\n---\n") {
		f.Add([]byte(doc))
	}
	f.Add([]byte(pool))
	f.Add([]byte(deployment))
	f.Add([]byte("a: 'x\"y\\z<>&'\nb: a<b&c\n"))
	f.Add([]byte("a:\n- - x\n  - -1\n-\n- b: \"q\"\n  c: true\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _, ok := fastYAMLToJSON(data)
		if !ok {
			return
		}
		want, err := yaml.YAMLToJSONStrict(data)
		if err != nil {
			t.Fatalf("fast path took %q, sigs.k8s.io/yaml refuses it: %v", data, err)
		}
		if string(want) != string(got) {
			t.Fatalf("%q: fast %s, sigs.k8s.io/yaml %s", data, got, want)
		}
	})
}

// FuzzScalarString: quickString and plainString, which read strings without interface values, say
// "a string" exactly where scalar and plain give one, and give the same one.
func FuzzScalarString(f *testing.F) {
	for _, s := range []string{"a", "p-1", "100m", "1.5Gi", "1", "-0", "+5", "yes", "~", "'it''s'", `"q"`, "a # c", "[]",
		"a: b", "x:", "&a", ".5Gi", "0", "007", "1e3", "'a' b", `"a\b"`, "Null", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if text == "" {
			return
		}
		v, ok := scalar(text)
		want, isString := v.(string)
		got, quick := quickString(text)
		if quick != (ok && isString) || (quick && got != want) {
			t.Fatalf("quickString(%q) = %q, %v; scalar gives %#v, %v", text, got, quick, v, ok)
		}
		p := plain(text)
		if s, isString := p.(string); plainString(text) != isString || (isString && s != text) {
			t.Fatalf("plainString(%q) = %v; plain gives %#v", text, plainString(text), p)
		}
	})
}
