//go:build e2e

package e2e

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/manifest"
)

// TestCRDsAcceptSeedManifests applies the CRDs and then the seed manifests, and checks that what the
// API server stored reads back into the same NodePools and AKSNodeClass as the library reads from the
// file: nothing was pruned by a schema that lacks a field.
func TestCRDsAcceptSeedManifests(t *testing.T) {
	c := startCluster(t, "apiserver")
	ctx := t.Context()
	objs, err := readObjects(seedManifests(t))
	require.NoError(t, err)
	require.NoError(t, c.create(ctx, objs...))

	want, err := manifest.DecodeFiles(seedManifests(t))
	require.NoError(t, err)
	require.Len(t, want.NodePools, 2)
	for _, np := range want.NodePools {
		got := &api.NodePool{}
		getInto(t, c, nodePoolsGVR, np.Name, got)
		got.Default()
		require.NoError(t, got.Validate(), np.Name)
		assert.JSONEq(t, toJSON(t, np.Spec), toJSON(t, got.Spec), "NodePool %s", np.Name)
	}
	class := &api.AKSNodeClass{}
	getInto(t, c, nodeClassGVR, "default", class)
	class.Default()
	assert.JSONEq(t, toJSON(t, want.NodeClass("default").Spec), toJSON(t, class.Spec))
}

// TestCRDsRejectInvalidObjects checks that the schemas validate (budget pattern, CEL requirement
// rules), that NodeClaim specs are immutable and that status goes through the status subresource.
func TestCRDsRejectInvalidObjects(t *testing.T) {
	c := startCluster(t, "apiserver")
	ctx := t.Context()

	bad := nodePoolObject("bad-budget", map[string]any{"budgets": []any{map[string]any{"nodes": "101%"}}}, nil)
	_, err := c.dyn.Resource(nodePoolsGVR).Create(ctx, bad, metav1.CreateOptions{})
	assert.True(t, apierrors.IsInvalid(err), "budget nodes 101%%: %v", err)

	noValues := nodePoolObject("no-values", nil, []any{map[string]any{"key": "kubernetes.io/arch", "operator": "In"}})
	_, err = c.dyn.Resource(nodePoolsGVR).Create(ctx, noValues, metav1.CreateOptions{})
	assert.True(t, apierrors.IsInvalid(err), "In without values: %v", err)

	claim := nodeClaimObject("immutable")
	created, err := c.dyn.Resource(nodeClaimsGVR).Create(ctx, claim, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, unstructured.SetNestedField(created.Object, "other", "spec", "nodeClassRef", "name"))
	_, err = c.dyn.Resource(nodeClaimsGVR).Update(ctx, created, metav1.UpdateOptions{})
	assert.True(t, apierrors.IsInvalid(err), "NodeClaim spec update: %v", err)

	created, err = c.dyn.Resource(nodeClaimsGVR).Get(ctx, "immutable", metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, unstructured.SetNestedField(created.Object, "azure:///x", "status", "providerID"))
	_, err = c.dyn.Resource(nodeClaimsGVR).UpdateStatus(ctx, created, metav1.UpdateOptions{})
	require.NoError(t, err)
	got := &api.NodeClaim{}
	getInto(t, c, nodeClaimsGVR, "immutable", got)
	assert.Equal(t, "azure:///x", got.Status.ProviderID)
}

// toJSON renders a value the way the controller would write it; comparing JSON rather than structs
// makes 100 and "100" the same quantity, as they are.
func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// getInto reads a cluster-scoped custom resource into a typed value through JSON, as the controller does.
func getInto(t *testing.T, c *cluster, gvr schema.GroupVersionResource, name string, into any) {
	t.Helper()
	u, err := c.dyn.Resource(gvr).Get(t.Context(), name, metav1.GetOptions{})
	require.NoError(t, err)
	b, err := json.Marshal(u.Object)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, into))
}

func nodePoolObject(name string, disruption map[string]any, requirements []any) *unstructured.Unstructured {
	spec := map[string]any{"nodeClassRef": map[string]any{"name": "default"}}
	if requirements != nil {
		spec["requirements"] = requirements
	}
	pool := map[string]any{"template": map[string]any{"spec": spec}}
	if disruption != nil {
		pool["disruption"] = disruption
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": api.KarpenterVersion, "kind": api.KindNodePool,
		"metadata": map[string]any{"name": name}, "spec": pool,
	}}
}

func nodeClaimObject(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": api.KarpenterVersion, "kind": api.KindNodeClaim,
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": "karpenter.azure.com", "kind": "AKSNodeClass", "name": "default"},
			"requirements": []any{map[string]any{"key": "kubernetes.io/arch", "operator": "In", "values": []any{"amd64"}}},
		},
	}}
}
