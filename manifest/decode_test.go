package manifest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/napkit/napkit/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const seedFile = "testdata/seed-manifests.yaml"

func decodeString(t *testing.T, s string) (*Set, error) {
	t.Helper()
	return Decode(strings.NewReader(s), "test.yaml")
}

func TestDecodeSeed(t *testing.T) {
	f, err := os.Open(seedFile)
	require.NoError(t, err)
	defer f.Close()
	set, err := Decode(f, seedFile)
	require.NoError(t, err)

	require.Len(t, set.NodePools, 2)
	assert.Equal(t, "general", set.NodePools[0].Name, "sorted by name")
	assert.Equal(t, "general-purpose", set.NodePools[1].Name)
	require.Len(t, set.NodeClasses, 1)
	assert.Equal(t, "default", set.NodeClasses[0].Name)
	assert.Empty(t, set.NodeClaims)

	require.Len(t, set.Objects, 1, "the inflate Deployment is kept for later decoders")
	obj := set.Objects[0]
	assert.Equal(t, Kind{"apps/v1", "Deployment"}, obj.Kind)
	assert.Equal(t, "inflate", obj.Name)
	assert.Equal(t, seedFile+" document 3 (line 66)", obj.Position)
	var deployment struct {
		Spec struct {
			Replicas int `json:"replicas"`
		} `json:"spec"`
	}
	require.NoError(t, json.Unmarshal(obj.JSON, &deployment))
	assert.Equal(t, 0, deployment.Spec.Replicas)

	require.Len(t, set.Notes, 1, "only the nodeClassRef of the second NodePool is napkit's own default")
	assert.Equal(t, api.Note{
		Object:  "NodePool/general",
		Field:   "spec.template.spec.nodeClassRef",
		Message: `defaulted group karpenter.azure.com and kind AKSNodeClass: the reference names only "default", taken as the AKSNodeClass of that name`,
	}, set.Notes[0])
}

func TestDecodeSeedValues(t *testing.T) {
	set, err := DecodeFiles(seedFile)
	require.NoError(t, err)
	gp := set.NodePool("general-purpose")
	require.NotNil(t, gp)
	assert.True(t, gp.Spec.Template.Spec.ExpireAfter.IsNever(), "an explicit Never survives defaulting")
	assert.Equal(t, "0s", gp.Spec.Disruption.ConsolidateAfter.String())
	assert.Equal(t, "100", gp.Spec.Limits.Cpu().String())
	assert.Equal(t, []api.Budget{{Nodes: "10%"}}, gp.Spec.Disruption.Budgets)
	assert.Equal(t, "cilium", gp.Spec.Template.ObjectMeta.Labels[api.LabelAKSEBPFDataplane])
	require.Len(t, gp.Spec.Template.Spec.StartupTaints, 1)
	assert.Equal(t, "node.cilium.io/agent-not-ready", gp.Spec.Template.Spec.StartupTaints[0].Key)

	general := set.NodePool("general")
	require.NotNil(t, general)
	assert.Equal(t, "720h0m0s", general.Spec.Template.Spec.ExpireAfter.String())
	assert.Equal(t, "400Gi", general.Spec.Limits.Memory().String())
	assert.Equal(t, api.NodeClassReference{Group: api.AzureGroup, Kind: api.KindAKSNodeClass, Name: "default"},
		*general.Spec.Template.Spec.NodeClassRef)

	nc := set.NodeClass("default")
	require.NotNil(t, nc)
	assert.Equal(t, api.ImageFamilyUbuntu, *nc.Spec.ImageFamily)
	assert.Equal(t, int32(128), *nc.Spec.OSDiskSizeGB)
	assert.Nil(t, set.NodeClass("missing"))
	assert.Nil(t, set.NodePool("missing"))
}

// TestDecodeDeterministic decodes the seed documents in reverse order and expects the same Set.
func TestDecodeDeterministic(t *testing.T) {
	data, err := os.ReadFile(seedFile)
	require.NoError(t, err)
	docs := strings.Split(string(data), "\n---\n")
	reversed := make([]string, 0, len(docs))
	for i := len(docs) - 1; i >= 0; i-- {
		reversed = append(reversed, docs[i])
	}
	a, err := Decode(bytes.NewReader(data), "s")
	require.NoError(t, err)
	b, err := Decode(strings.NewReader(strings.Join(reversed, "\n---\n")), "s")
	require.NoError(t, err)
	assert.Equal(t, a.NodePools, b.NodePools)
	assert.Equal(t, a.NodeClasses, b.NodeClasses)
	assert.Equal(t, len(a.Objects), len(b.Objects))
	assert.Equal(t, a.Notes, b.Notes)
}

func TestDecodeFormats(t *testing.T) {
	const pool = `{"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"%s"},
		"spec":{"template":{"spec":{"nodeClassRef":{"group":"karpenter.azure.com","kind":"AKSNodeClass","name":"default"}}}}}`
	const class = `{"apiVersion":"karpenter.azure.com/v1beta1","kind":"AKSNodeClass","metadata":{"name":"default"}}`
	p := func(name string) string { return strings.ReplaceAll(pool, "%s", name) }
	tests := []struct {
		name      string
		input     string
		wantPools []string
		wantNotes int
	}{
		{"JSON object", p("a") + "\n" + class, []string{"a"}, 0},
		{"JSON stream", p("b") + p("a") + class, []string{"a", "b"}, 0},
		{"JSON array", "[" + p("b") + "," + p("a") + "," + class + "]", []string{"a", "b"}, 0},
		{"YAML flow mapping", "{apiVersion: karpenter.azure.com/v1beta1, kind: AKSNodeClass, metadata: {name: default}}", nil, 0},
		{"List", `{"apiVersion":"v1","kind":"List","items":[` + p("b") + "," + p("a") + "," + class + "]}", []string{"a", "b"}, 0},
		{"separator with comment and BOM", "\xef\xbb\xbf--- # first\n" + class + "\n--- \n" + p("a"), []string{"a"}, 0},
		{"missing class is noted", p("a"), []string{"a"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := decodeString(t, tt.input)
			require.NoError(t, err)
			var names []string
			for _, np := range set.NodePools {
				names = append(names, np.Name)
			}
			assert.Equal(t, tt.wantPools, names)
			assert.Len(t, set.Notes, tt.wantNotes)
		})
	}
}

func TestDecodeSkipsUnknownKinds(t *testing.T) {
	set, err := decodeString(t, `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec: {anything: goes}
---
apiVersion: v1
kind: List
items:
  - {apiVersion: v1, kind: List, metadata: {name: nested}}
---
apiVersion: karpenter.azure.com/v1beta1
kind: AKSNodeClass
metadata: {name: default}
`)
	require.NoError(t, err)
	assert.Len(t, set.NodeClasses, 1)
	require.Len(t, set.Notes, 2)
	assert.Equal(t, api.Note{Object: "Widget/w", Message: "skipped test.yaml document 1 (line 2): napkit does not read example.com/v1/Widget"}, set.Notes[0])
	assert.Equal(t, "skipped test.yaml document 2 (line 7) item 1: napkit does not read v1/List", set.Notes[1].Message)
}

func TestDecodeNothingToRead(t *testing.T) {
	for name, input := range map[string]string{
		"empty input":                  "",
		"only comments and separators": "# nothing\n---\n---\n# still nothing\n",
		"only unknown kinds":           "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
	} {
		t.Run(name, func(t *testing.T) {
			set, err := decodeString(t, input)
			assert.Nil(t, set)
			require.ErrorIs(t, err, ErrNoObjects)
			assert.ErrorContains(t, err, "test.yaml")
		})
	}
}

// upstream: karpenter.sh v1 migration (https://karpenter.sh/docs/upgrading/v1-migration/) and
// pkg/apis/crds/karpenter.azure.com_aksnodeclasses.yaml, where v1alpha2 is
// "deprecated: use v1beta1.AKSNodeClass instead".
func TestDecodeRefusesOldKarpenterVersions(t *testing.T) {
	tests := []struct{ apiVersion, kind, hint string }{
		{"karpenter.sh/v1beta1", "NodePool", "v1-migration"},
		{"karpenter.sh/v1beta1", "NodeClaim", "v1-migration"},
		{"karpenter.sh/v1alpha5", "Provisioner", "karpenter.sh/v1 NodePool"},
		{"karpenter.sh/v1alpha5", "Machine", "karpenter.sh/v1 NodeClaim"},
		{"karpenter.azure.com/v1alpha2", "AKSNodeClass", "aksnodeclasses.v1beta1.karpenter.azure.com"},
		{"karpenter.azure.com/v1alpha1", "AKSNodeTemplate", "karpenter.azure.com/v1beta1 AKSNodeClass"},
	}
	for _, tt := range tests {
		t.Run(tt.apiVersion+"/"+tt.kind, func(t *testing.T) {
			input := "apiVersion: karpenter.azure.com/v1beta1\nkind: AKSNodeClass\nmetadata: {name: default}\n---\n" +
				"apiVersion: " + tt.apiVersion + "\nkind: " + tt.kind + "\nmetadata: {name: old}\n"
			set, err := decodeString(t, input)
			assert.Nil(t, set)
			require.ErrorIs(t, err, ErrUnsupportedVersion)
			var de *DocumentError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, "test.yaml document 2 (line 5)", de.Position)
			assert.ErrorContains(t, err, `apiVersion "`+tt.apiVersion+`"`)
			assert.ErrorContains(t, err, tt.hint)
		})
	}
}

func TestDecodeCustomKind(t *testing.T) {
	kinds := DefaultKinds()
	var seen []string
	kinds[Kind{"v1", "Pod"}] = func(doc *Document, set *Set) error {
		seen = append(seen, doc.Position()+" "+doc.Object())
		return nil
	}
	set, err := NewDecoder(kinds).Decode(strings.NewReader("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\n"), "pods.yaml")
	require.NoError(t, err)
	assert.Equal(t, []string{"pods.yaml document 1 (line 1) Pod ns/p"}, seen)
	assert.Empty(t, set.Objects, "the replacement decoder, not KeepObject, handled the Pod")
}

func TestDecodeFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		return path
	}
	seed, err := os.ReadFile(seedFile)
	require.NoError(t, err)
	write("b-seed.yaml", string(seed))
	write("a-extra.yml", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: extra}\nspec: {template: {spec: {nodeClassRef: {name: default}}}}\n")
	write("c-pod.json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"}}`)
	write("notes.txt", "not a manifest")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub.yaml"), 0o700))

	set, err := DecodeFiles(dir)
	require.NoError(t, err)
	require.Len(t, set.NodePools, 3)
	assert.Equal(t, []string{"extra", "general", "general-purpose"},
		[]string{set.NodePools[0].Name, set.NodePools[1].Name, set.NodePools[2].Name})
	require.Len(t, set.Objects, 2)
	assert.Equal(t, Kind{"v1", "Pod"}, set.Objects[1].Kind, "objects sorted by apiVersion, kind, namespace, name")
	assert.Equal(t, filepath.Join(dir, "c-pod.json")+" document 1 (line 1)", set.Objects[1].Position)
	require.Len(t, set.Notes, 2)
	assert.Equal(t, "NodePool/extra", set.Notes[0].Object, "notes in file order: a-extra.yml first")

	dupe := write("dupe.yaml", "apiVersion: karpenter.azure.com/v1beta1\nkind: AKSNodeClass\nmetadata: {name: default}\n")
	_, err = DecodeFiles(filepath.Join(dir, "b-seed.yaml"), dupe)
	require.ErrorIs(t, err, ErrDecode)
	assert.EqualError(t, err, dupe+` document 1 (line 1) AKSNodeClass "default": cannot decode: AKSNodeClass "default" is defined twice; first at `+
		filepath.Join(dir, "b-seed.yaml")+" document 2 (line 57)")

	_, err = DecodeFiles(filepath.Join(dir, "missing.yaml"))
	require.ErrorIs(t, err, ErrDecode)
	assert.ErrorContains(t, err, "missing.yaml")
}

// TestNodeClassRead: the hook sees each node class as read, in input order, before the documents
// after it; the Set holds the same values; a node class refused later still reached the hook
// once, and then no Set is returned.
func TestNodeClassRead(t *testing.T) {
	class := func(name string) string {
		return "apiVersion: karpenter.azure.com/v1beta1\nkind: AKSNodeClass\nmetadata:\n  name: " + name + "\nspec:\n  imageFamily: Ubuntu\n"
	}
	const pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n"
	tests := []struct {
		name    string
		docs    []string
		want    []string // names the hook saw, in order
		wantErr string
	}{
		{"two classes", []string{class("zeta"), pod, class("alpha")}, []string{"zeta", "alpha"}, ""},
		{"defined twice", []string{class("a"), class("a")}, []string{"a"}, "AKSNodeClass \"a\" is defined twice"},
		{"none", []string{pod}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []*api.AKSNodeClass
			d := &Decoder{NodeClassRead: func(nc *api.AKSNodeClass) { seen = append(seen, nc) }}
			set, err := d.Decode(strings.NewReader(strings.Join(tt.docs, "---\n")), "in.yaml")
			var names []string
			for _, nc := range seen {
				names = append(names, nc.Name)
				require.NotNil(t, nc.Spec.OSDiskSizeGB, "defaulted")
			}
			assert.Equal(t, tt.want, names)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.Nil(t, set)
				return
			}
			require.NoError(t, err)
			assert.ElementsMatch(t, seen, set.NodeClasses, "the Set's own values")
		})
	}
}
