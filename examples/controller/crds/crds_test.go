package crds

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/napkit/napkit/api"
)

// crdsByKind decodes the embedded CRDs and indexes them by kind.
func crdsByKind(t *testing.T) map[string]*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	list, err := CRDs()
	require.NoError(t, err)
	out := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, c := range list {
		out[c.Spec.Names.Kind] = c
	}
	return out
}

func schemaOf(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	require.Len(t, crd.Spec.Versions, 1, crd.Name)
	require.NotNil(t, crd.Spec.Versions[0].Schema, crd.Name)
	return crd.Spec.Versions[0].Schema.OpenAPIV3Schema
}

func TestCRDsShape(t *testing.T) {
	want := map[string]struct{ name, group, version string }{
		"NodePool":     {"nodepools.karpenter.sh", "karpenter.sh", "v1"},
		"NodeClaim":    {"nodeclaims.karpenter.sh", "karpenter.sh", "v1"},
		"AKSNodeClass": {"aksnodeclasses.karpenter.azure.com", "karpenter.azure.com", "v1beta1"},
	}
	got := crdsByKind(t)
	require.Len(t, got, len(want))
	for kind, w := range want {
		crd := got[kind]
		require.NotNil(t, crd, kind)
		assert.Equal(t, w.name, crd.Name)
		assert.Equal(t, w.group, crd.Spec.Group)
		assert.Equal(t, apiextensionsv1.ClusterScoped, crd.Spec.Scope, kind)
		v := crd.Spec.Versions[0]
		assert.Equal(t, w.version, v.Name)
		assert.True(t, v.Served && v.Storage, kind)
		require.NotNil(t, v.Subresources, kind)
		assert.NotNil(t, v.Subresources.Status, "%s needs a status subresource", kind)
		assert.NotEmpty(t, v.AdditionalPrinterColumns, kind)
	}
}

// TestCRDsAreStructural runs the API server's own structural-schema check, so a schema the server
// would refuse fails without a server.
func TestCRDsAreStructural(t *testing.T) {
	for kind, crd := range crdsByKind(t) {
		internal := &apiextensions.JSONSchemaProps{}
		require.NoError(t, apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(
			schemaOf(t, crd), internal, nil), kind)
		s, err := structuralschema.NewStructural(internal)
		require.NoError(t, err, kind)
		errs := structuralschema.ValidateStructural(field.NewPath("openAPIV3Schema"), s)
		assert.Empty(t, errs, "%s: %v", kind, errs.ToAggregate())
	}
}

// TestSchemasCoverAPITypes checks that every JSON field of the library's types is in the schema (the
// API server prunes unknown fields, so a missing one would be dropped silently) and that the schema
// has no field the types lack (a typo there would accept data nobody reads).
func TestSchemasCoverAPITypes(t *testing.T) {
	crds := crdsByKind(t)
	cases := []struct {
		kind  string
		value any
		extra []string
	}{
		{"NodePool", api.NodePool{}, []string{".status.nodes"}},
		{"NodeClaim", api.NodeClaim{}, nil},
		{"AKSNodeClass", api.AKSNodeClass{}, nil},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			missing, unknown := compareSchema(c.value, schemaOf(t, crds[c.kind]))
			assert.Empty(t, missing, "fields of api.%s missing from the schema", c.kind)
			assert.ElementsMatch(t, c.extra, unknown, "schema fields api.%s does not have", c.kind)
		})
	}
}

// TestSharedSchemasAgree keeps the parts NodePool and NodeClaim share identical, since the YAML
// repeats them (CRD schemas allow no $ref).
func TestSharedSchemasAgree(t *testing.T) {
	crds := crdsByKind(t)
	pool := schemaOf(t, crds["NodePool"]).Properties["spec"].Properties["template"].Properties["spec"]
	claim := schemaOf(t, crds["NodeClaim"]).Properties["spec"]
	for _, f := range []string{"taints", "startupTaints", "requirements", "nodeClassRef", "expireAfter", "terminationGracePeriod"} {
		assert.Equal(t, pool.Properties[f], claim.Properties[f], f)
	}
	poolConds := schemaOf(t, crds["NodePool"]).Properties["status"].Properties["conditions"]
	for _, kind := range []string{"NodeClaim", "AKSNodeClass"} {
		assert.Equal(t, poolConds, schemaOf(t, crds[kind]).Properties["status"].Properties["conditions"], kind)
	}
}

func TestBudgetNodesPattern(t *testing.T) {
	spec := schemaOf(t, crdsByKind(t)["NodePool"]).Properties["spec"]
	budget := spec.Properties["disruption"].Properties["budgets"].Items.Schema
	assert.Equal(t, []string{"nodes"}, budget.Required)
	re := regexp.MustCompile(budget.Properties["nodes"].Pattern)
	for _, ok := range []string{"0", "10", "250", "0%", "10%", "100%"} {
		assert.True(t, re.MatchString(ok), ok)
	}
	for _, bad := range []string{"", "101%", "-1", "10.5%", "1e3", "%", "10 %"} {
		assert.False(t, re.MatchString(bad), bad)
	}
}

func TestDurationPatterns(t *testing.T) {
	tmpl := schemaOf(t, crdsByKind(t)["NodePool"]).Properties["spec"].Properties["template"].Properties["spec"]
	re := regexp.MustCompile(tmpl.Properties["expireAfter"].Pattern)
	for _, ok := range []string{"Never", "720h", "1h30m", "0s", "90s"} {
		assert.True(t, re.MatchString(ok), ok)
	}
	for _, bad := range []string{"never", "1.5h", "100ms", "0", "-1h", ""} {
		assert.False(t, re.MatchString(bad), bad)
	}
}

// TestCompareSchemaFindsGaps makes sure the walker behind TestSchemasCoverAPITypes can fail.
func TestCompareSchemaFindsGaps(t *testing.T) {
	type inner struct {
		A string `json:"a"`
	}
	type outer struct {
		Inner inner          `json:"inner"`
		N     *int32         `json:"n,omitempty"`
		Tags  map[string]int `json:"tags"`
	}
	s := &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"inner": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"b": {Type: "string"}}},
		"n":     {Type: "string"},
	}}
	missing, unknown := compareSchema(outer{}, s)
	assert.Equal(t, []string{".inner.a", ".n (integer)", ".tags"}, missing)
	assert.Equal(t, []string{".inner.b"}, unknown)
}
