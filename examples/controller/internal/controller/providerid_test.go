package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/napkit/napkit/api"
)

const (
	providerID1 = "azure:///subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/aks-default-1"
	providerID2 = "azure:///subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/aks-default-2"
)

// TestIndexFuncs: the informer indexes key pods by node name and Nodes and NodeClaims by provider
// ID, and leave out objects without one (an empty key would link unrelated objects).
func TestIndexFuncs(t *testing.T) {
	t.Parallel()
	claimU := func(providerID string) *unstructured.Unstructured {
		nc := testClaim("c", "default", providerID)
		claimTypeMeta(nc)
		u, err := ToUnstructured(nc)
		require.NoError(t, err)
		return u
	}
	tests := []struct {
		name  string
		index cache.IndexFunc
		obj   any
		want  []string
	}{
		{"bound pod", podNodeName, newPod("p", boundTo("n1")), []string{"n1"}},
		{"pending pod", podNodeName, newPod("p"), nil},
		{"not a pod", podNodeName, newNode("n1", providerID1), nil},
		{"node", nodeProviderID, newNode("n1", providerID1), []string{providerID1}},
		{"node without provider ID", nodeProviderID, newNode("n1", ""), nil},
		{"not a node", nodeProviderID, newPod("p"), nil},
		{"claim (decoded, as the cache holds it)", claimProviderID, testClaim("c", "default", providerID1), []string{providerID1}},
		{"claim not launched", claimProviderID, testClaim("c", "default", ""), nil},
		{"undecodable claim (kept unstructured)", claimProviderID, claimU(providerID1), []string{providerID1}},
		{"not a claim", claimProviderID, newNode("n1", providerID1), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.index(tt.obj)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestProviderIDLookups: nodeFor and claimFor find the object launched with a provider ID, by
// exact match, and nothing for an empty or unknown ID.
func TestProviderIDLookups(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.addNode(t, newNode("aks-default-1", providerID1), newNode("static", ""))
	e.addClaim(t, testClaim("default-1", "default", providerID1, launched()), testClaim("default-3", "default", ""))
	tests := []struct {
		providerID string
		wantNode   string
		wantClaim  string
	}{
		{providerID: providerID1, wantNode: "aks-default-1", wantClaim: "default-1"},
		{providerID: providerID2},
		{providerID: ""},
		{providerID: providerID1 + "x"},
	}
	for _, tt := range tests {
		t.Run("id="+tt.providerID, func(t *testing.T) {
			t.Parallel()
			node, nc := e.c.nodeFor(tt.providerID), e.c.claimFor(tt.providerID)
			if tt.wantNode == "" {
				assert.Nil(t, node)
			} else if assert.NotNil(t, node) {
				assert.Equal(t, tt.wantNode, node.Name)
			}
			if tt.wantClaim == "" {
				assert.Nil(t, nc)
			} else if assert.NotNil(t, nc) {
				assert.Equal(t, tt.wantClaim, nc.Name)
				assert.Equal(t, tt.providerID, nc.Status.ProviderID)
				assert.True(t, claimLaunched(nc), "decoded with its status")
			}
		})
	}
}

// TestCacheReaders: the typed readers of the caches (sorted where the controller relies on it).
func TestCacheReaders(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.addNode(t, newNode("b", providerID2), newNode("a", providerID1))
	e.addClaim(t, testClaim("default-2", "default", providerID2), testClaim("default-1", "default", providerID1))
	e.addPod(t, newPod("p1", boundTo("a")), newPod("p2", boundTo("b")), newPod("p3", boundTo("a")), newPod("p4"))

	assert.Equal(t, []string{"a", "b"}, mapSlice(e.c.nodes(), func(n *corev1.Node) string { return n.Name }))
	assert.Equal(t, []string{"default-1", "default-2"}, mapSlice(e.c.claims(), func(nc *api.NodeClaim) string { return nc.Name }))
	assert.ElementsMatch(t, []string{"p1", "p3"}, mapSlice(e.c.podsOn("a"), func(p *corev1.Pod) string { return p.Name }))
	assert.Len(t, e.c.allPods(), 4)
	assert.Equal(t, "b", e.c.node("b").Name)
	assert.Nil(t, e.c.node("c"))
	assert.Equal(t, providerID2, e.c.claim("default-2").Status.ProviderID)
	assert.Nil(t, e.c.claim("default-9"))
}
