package manifest

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"
)

// TestTemplateSameAsFullPath: documents read through a template give the Set (JSON, positions,
// typed values) or the errors the full path gives. Each case's rest is repeated under three
// metadata blocks, so the second and third documents are read from the first one's template.
func TestTemplateSameAsFullPath(t *testing.T) {
	const podRest = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n    image: nginx\n    resources:\n      requests:\n        cpu: 100m\n"
	metas := []string{
		"metadata:\n  name: a\n",
		"metadata:\n  name: b\n  namespace: x\n  labels:\n    app: web\n    pod-template-hash: c5d4f\n  annotations:\n    note: '<&>'\n",
		"metadata:\n  # a comment\n  name: c\n  uid: f3a2\n\n",
	}
	for _, tc := range []struct {
		name string
		doc  func(meta string) string // the document with that metadata block
		hits bool                     // whether the documents are read through a template
	}{
		{"metadata after the kind", func(m string) string { return strings.Replace(podRest, "spec:", m+"spec:", 1) }, true},
		{"metadata first", func(m string) string { return m + podRest }, true},
		{"metadata last", func(m string) string { return podRest + m }, true},
		{"deployment", func(m string) string { return m + blockDeployment }, true},
		{"flow deployment", func(m string) string {
			return strings.Replace(deployment, "metadata: {name: web, namespace: shop}\n", m, 1)
		}, false},
		{"status after spec", func(m string) string { return m + podRest + "status:\n  phase: Pending\n" }, true},
		{"metadata as a sequence", func(m string) string { return podRest + "metadata:\n- a\n" }, false},
		{"sequence item after metadata", func(m string) string { return podRest + m + "- x\n" }, false},
		{"second metadata key", func(m string) string { return m + podRest + "\"metadata\":\n  name: z\n" }, false},
		{"indented document", func(m string) string { return indent(m + podRest) }, false},
		{"flow metadata", func(m string) string { return fmt.Sprintf("metadata: {name: n%d}\n", len(m)) + podRest }, false},
		{"unknown metadata field", func(m string) string { return m + "  nmae: x\n" + podRest }, false},
		{"unknown spec field", func(m string) string { return m + podRest + "  containerz: []\n" }, false},
		{"negative request", func(m string) string { return m + strings.Replace(podRest, "100m", "-1", 1) }, false},
		{"huge exponent in metadata", func(m string) string { return m + "  annotations:\n    n: 1e99999\n" + podRest }, false},
		{"huge exponent in spec", func(m string) string { return m + strings.Replace(podRest, "100m", "1e99999", 1) }, false},
		{"node pool", func(m string) string { return strings.Replace(pool, "metadata:\n  name: general\n", m, 1) }, false},
		{"kind napkit skips", func(m string) string { return m + "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n" }, false},
		{"flow spec", func(m string) string { return m + "apiVersion: v1\nkind: Pod\nspec: {containers: [{name: c}]}\n" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var docs []string
			for _, m := range metas {
				docs = append(docs, tc.doc(m))
			}
			input := "---\n" + strings.Join(docs, "---\n")
			assertSameSet(t, input)
			b := (&Decoder{}).newBuild()
			b.source([]byte(input), "in.yaml")
			want := 0
			if tc.hits {
				want = len(metas)
			}
			assert.EqualValues(t, want, b.templated.Load())
		})
	}
}

const blockDeployment = `apiVersion: apps/v1
kind: Deployment
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: app
        image: nginx
        resources:
          requests:
            cpu: 500m
`

// TestTemplateSeed: the seed manifests read the same with templates as without.
func TestTemplateSeed(t *testing.T) {
	data, err := os.ReadFile(seedFile)
	require.NoError(t, err)
	assertSameSet(t, string(data)+"\n---\n"+strings.ReplaceAll(string(data), "name: ", "name: x"))
}

// TestTemplateCopies: documents read from one template own their values: changing one pod's spec
// changes neither another's nor a later read.
func TestTemplateCopies(t *testing.T) {
	input := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec:\n  containers:\n  - name: c\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: b\nspec:\n  containers:\n  - name: c\n"
	set, err := Decode(strings.NewReader(input), "in.yaml")
	require.NoError(t, err)
	require.Len(t, set.Objects, 2)
	a, b := set.Objects[0].Typed().(*corev1.Pod), set.Objects[1].Typed().(*corev1.Pod)
	assert.Equal(t, []string{"a", "b"}, []string{a.Name, b.Name})
	a.Spec.Containers[0].Name = "changed"
	assert.Equal(t, "c", b.Spec.Containers[0].Name)
	again, err := Decode(strings.NewReader(input), "in.yaml")
	require.NoError(t, err)
	assert.Equal(t, "c", again.Objects[0].Typed().(*corev1.Pod).Spec.Containers[0].Name)
}

// TestTemplateCacheBounded: a build keeps at most maxTemplates templates; documents beyond that are
// still read, from templates of their own.
func TestTemplateCacheBounded(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // one worker: the counts are exact
	var sb strings.Builder
	for i := range maxTemplates + 10 {
		for _, suffix := range []string{"a", "b"} { // two documents per template, so it is worth keeping
			fmt.Fprintf(&sb, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p-%d-%s\nspec:\n  priority: %d\n", i, suffix, i)
		}
	}
	b := (&Decoder{}).newBuild()
	b.source([]byte(sb.String()), "in.yaml")
	set, err := b.finish([]string{"in.yaml"})
	require.NoError(t, err)
	assert.Len(t, set.Objects, 2*(maxTemplates+10))
	assert.Len(t, b.templates.m, maxTemplates)
	assert.EqualValues(t, 2*(maxTemplates+10), b.templated.Load())
	assertSameSet(t, sb.String())
}

// TestQuickMeta: the metadata blocks quickMeta reads give the ObjectMeta and JSON of the general way
// (fast converter, strict decode); the others are left to it.
func TestQuickMeta(t *testing.T) {
	for _, tc := range []struct {
		name, block string
		quick       bool
	}{
		{"name", "metadata:\n  name: a\n", true},
		{"all fields", "metadata:\n  uid: f3a2\n  namespace: 'x'\n  name: \"a<b\"\n  generateName: a-\n  resourceVersion: v1\n" +
			"  labels:\n    b: '1'\n    a: c # comment\n  annotations:\n    z/y: q\n", true},
		{"deeper indentation", "metadata:\n    name: a\n    labels:\n          x: z\n", true},
		{"number label", "metadata:\n  labels:\n    a: 1\n", false},
		{"word label", "metadata:\n  labels:\n    a: yes\n", false},
		{"empty name", "metadata:\n  name:\n", false},
		{"empty labels", "metadata:\n  labels:\n  name: a\n", false},
		{"flow labels", "metadata:\n  labels: {}\n", false},
		{"duplicate", "metadata:\n  name: a\n  name: b\n", false},
		{"duplicate label", "metadata:\n  labels:\n    a: b\n    a: c\n", false},
		{"uneven labels", "metadata:\n  labels:\n    a: b\n   c: d\n", false},
		{"other field", "metadata:\n  finalizers:\n  - x\n", false},
		{"sequence", "metadata:\n- a\n", false},
		{"nothing below", "metadata:\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var meta metav1.ObjectMeta
			var fields quickFields
			ok := quickMeta([]byte(tc.block), &meta, &fields)
			require.Equal(t, tc.quick, ok)
			if !ok {
				return
			}
			fields.sort()
			js := fields.appendJSON(nil)
			assert.Len(t, js, fields.jsonLen())
			wantJSON, _, ok := fastYAMLToJSON([]byte(tc.block))
			require.True(t, ok)
			assert.Equal(t, string(wantJSON), `{"metadata":`+string(js)+`}`)
			var want metadataOnly
			strict, err := sigsjson.UnmarshalStrict(wantJSON, &want)
			require.NoError(t, err)
			require.Empty(t, strict)
			assert.Equal(t, want.Metadata, meta)
		})
	}
}

// TestTemplateGivesUp: where documents share no template, the build stops looking them up after
// giveUpAfter tries, and reads the same Set.
func TestTemplateGivesUp(t *testing.T) {
	var distinct, shared strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&distinct, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p-%d\nspec:\n  nodeName: node-%d\n", i, i)
		fmt.Fprintf(&shared, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p-%d\nspec:\n  nodeName: node-%d\n", i, i%3)
	}
	for _, tc := range []struct {
		name      string
		input     string
		wantTried int64
	}{
		{"distinct", distinct.String(), giveUpAfter},
		{"shared", shared.String(), 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // one worker: the count is exact
			b := (&Decoder{}).newBuild()
			b.source([]byte(tc.input), "in.yaml")
			assert.Equal(t, tc.wantTried, b.templates.tried.Load())
			assertSameSet(t, tc.input)
		})
	}
}

// FuzzTemplate: a rest under two metadata blocks, once after it and once before, reads the same
// with templates as without.
func FuzzTemplate(f *testing.F) {
	f.Add("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n", "  name: a\n", "  name: b\n  labels:\n    x: y\n")
	f.Add(strings.Replace(deployment, "metadata:\n  name: web\n", "", 1), "  name: w\n", "  name: v\n")
	f.Add("apiVersion: v1\nkind: Pod\n", "- a\n", "  name: {}\n")
	f.Add("apiVersion: v1\nkind: Pod\n", "  labels:\n    a: 1\n", "  uid: 'q'\n  annotations:\n    k: v\n    k: w\n")
	f.Fuzz(func(t *testing.T, rest, meta1, meta2 string) {
		assertSameSet(t, rest+"\nmetadata:\n"+meta1+"\n---\nmetadata:\n"+meta2+"\n"+rest)
	})
}

// assertSameSet decodes input with templates (copied and shared) and without, and wants the same
// Set or errors.
func assertSameSet(t *testing.T, input string) {
	t.Helper()
	want, wantErr := (&Decoder{noTemplates: true}).Decode(bytes.NewReader([]byte(input)), "in.yaml")
	for _, d := range []*Decoder{{}, {ShareTemplates: true}} {
		got, err := d.Decode(bytes.NewReader([]byte(input)), "in.yaml")
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err))
		if wantErr == nil {
			assertSetsEqual(t, want, got)
		}
	}
}

func assertSetsEqual(t *testing.T, want, got *Set) {
	t.Helper()
	require.Len(t, got.Objects, len(want.Objects))
	for i := range want.Objects {
		assert.Equal(t, string(want.Objects[i].JSON), string(got.Objects[i].JSON))
		assert.Equal(t, want.Objects[i].Position, got.Objects[i].Position)
		assert.Equal(t, want.Objects[i].Typed(), got.Objects[i].Typed())
		w, g := want.Objects[i], got.Objects[i]
		w.JSON, g.JSON, w.typed, g.typed = nil, nil, nil, nil
		assert.Equal(t, w, g)
	}
	assert.Equal(t, want.NodePools, got.NodePools)
	assert.Equal(t, want.NodeClasses, got.NodeClasses)
	assert.Equal(t, want.NodeClaims, got.NodeClaims)
	assert.Equal(t, want.Notes, got.Notes)
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}

// TestShareTemplates: with ShareTemplates, pods read through one template share the spec's
// containers and nothing at the top level; without it, nothing. (Workers that meet a new template at
// the same time each make one, so up to GOMAXPROCS copies of it may exist.)
func TestShareTemplates(t *testing.T) {
	const rest = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n    image: nginx\n"
	var docs []string
	for i := range 16 {
		docs = append(docs, fmt.Sprintf("metadata:\n  name: p%02d\n", i)+rest)
	}
	input := strings.Join(docs, "---\n")
	for _, share := range []bool{false, true} {
		t.Run(fmt.Sprint(share), func(t *testing.T) {
			set, err := (&Decoder{ShareTemplates: share}).Decode(strings.NewReader(input), "in.yaml")
			require.NoError(t, err)
			require.Len(t, set.Objects, len(docs))
			containers := map[*corev1.Container]bool{}
			for i, obj := range set.Objects {
				pod := obj.Typed().(*corev1.Pod)
				assert.Equal(t, fmt.Sprintf("p%02d", i), pod.Name)
				containers[&pod.Spec.Containers[0]] = true
			}
			if share {
				assert.LessOrEqual(t, len(containers), runtime.GOMAXPROCS(0), "containers shared")
			} else {
				assert.Len(t, containers, len(docs), "containers copied")
			}
			a, b := set.Objects[0].Typed().(*corev1.Pod), set.Objects[1].Typed().(*corev1.Pod)
			b.Spec.NodeName, b.Labels = "node-1", map[string]string{"x": "y"}
			assert.Empty(t, a.Spec.NodeName, "top-level fields are each pod's own")
			assert.Empty(t, a.Labels)
			var copied corev1.Pod
			require.NoError(t, set.Objects[0].Decode(&copied))
			assert.NotSame(t, &a.Spec.Containers[0], &copied.Spec.Containers[0], "Decode copies")
		})
	}
}
