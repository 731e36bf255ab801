package controller

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/napkit/napkit/api"
)

// TestBatchReleaseAdoptsEveryNodeFirst: the claim that releases its batch removes every mate's
// karpenter.sh/unregistered taint before any claim's status is written; the registrations then
// write only the claims' status. A Node whose release write failed is written by its own
// registration instead.
func TestBatchReleaseAdoptsEveryNodeFirst(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		failNodeB  bool
		nodeWrites int // by the two registrations after the release
	}{
		{name: "every node adopted by the release", nodeWrites: 0},
		{name: "a failed release write is the registration's", failNodeB: true, nodeWrites: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			unregistered := tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute)
			e.addClaim(t, testClaim("a", "default", "azure:///a", launched()), testClaim("b", "default", "azure:///b", launched()))
			e.addNode(t, newNode("na", "azure:///a", isReady(), unregistered))
			e.addNode(t, newNode("nb", "azure:///b", isReady(), unregistered))
			e.c.mates.add([]string{"a", "b"})
			if tc.failNodeB {
				failOnce(e, "nb")
			}
			e.kube.ClearActions()
			e.dyn.ClearActions()

			require.Zero(t, e.c.batchWait(context.Background(), e.c.claim("a")))
			assert.Empty(t, writes(e.dyn.Actions()), "no claim written by the release")
			assert.False(t, hasTaint(e.storedNode(t, "na").Spec.Taints, api.TaintKeyUnregistered), "na released")
			assert.Equal(t, tc.failNodeB, hasTaint(e.storedNode(t, "nb").Spec.Taints, api.TaintKeyUnregistered), "nb released")

			e.kube.ClearActions()
			for _, name := range []string{"a", "b"} {
				nc := e.c.claim(name)
				require.NoError(t, e.c.register(context.Background(), nc, e.c.nodeFor(nc.Status.ProviderID)))
				claim := e.storedClaim(t, name)
				assert.True(t, claimRegistered(claim), name)
				assert.True(t, claimInitialized(claim), "%s: its node was ready when adopted", name)
			}
			assert.Len(t, writes(e.kube.Actions()), tc.nodeWrites, "Node writes by the registrations")
			assert.False(t, hasTaint(e.storedNode(t, "nb").Spec.Taints, api.TaintKeyUnregistered))
			assert.Empty(t, e.c.mates.adopted, "each adoption taken once")
		})
	}
}

// failOnce makes the first update of the named Node fail.
func failOnce(e *testEnv, node string) {
	failed := false
	e.kube.PrependReactor("update", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		u, ok := a.(k8stesting.UpdateAction)
		if !ok || failed || u.GetObject().(*corev1.Node).Name != node {
			return false, nil, nil
		}
		failed = true
		return true, nil, errors.New("injected: the API server is unavailable")
	})
}
