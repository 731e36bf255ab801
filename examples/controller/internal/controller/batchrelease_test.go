package controller

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

// TestBatchWait: a batch's node keeps karpenter.sh/unregistered while a mate has no node yet,
// within the cap; a mate that failed, is deleting or is gone waits for nobody; the claim that
// finds the batch complete releases it and requeues its mates.
func TestBatchWait(t *testing.T) {
	t.Parallel()
	failed := withCondition(api.ConditionLaunched, metav1.ConditionFalse, "LaunchFailed", testNow)
	tests := []struct {
		name      string
		inBatch   bool
		mate      func() *api.NodeClaim // nil: gone
		mateNode  bool
		firstSeen time.Duration // how long ago the batch's first node appeared (0: now)
		want      time.Duration
		requeued  int
	}{
		{name: "not in a batch", mate: func() *api.NodeClaim { return testClaim("b", "default", "azure:///b", launched()) }, want: 0},
		{name: "a mate's node still coming", inBatch: true,
			mate: func() *api.NodeClaim { return testClaim("b", "default", "azure:///b", launched()) }, want: batchReleasePoll},
		{name: "every node there: released, the mate requeued", inBatch: true, mateNode: true,
			mate: func() *api.NodeClaim { return testClaim("b", "default", "azure:///b", launched()) }, want: 0, requeued: 1},
		{name: "a mate not launched yet waits", inBatch: true,
			mate: func() *api.NodeClaim { return testClaim("b", "default", "") }, want: batchReleasePoll},
		{name: "a failed mate waits for nobody", inBatch: true,
			mate: func() *api.NodeClaim { return testClaim("b", "default", "", failed) }, want: 0, requeued: 1},
		{name: "a deleting mate waits for nobody", inBatch: true,
			mate: func() *api.NodeClaim { return testClaim("b", "default", "azure:///b", launched(), claimDeleting()) }, want: 0, requeued: 1},
		{name: "a gone mate waits for nobody", inBatch: true, want: 0, requeued: 1},
		{name: "cap: released although a mate's node is coming", inBatch: true, firstSeen: batchReleaseCap,
			mate: func() *api.NodeClaim { return testClaim("b", "default", "azure:///b", launched()) }, want: 0, requeued: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			e.addClaim(t, testClaim("a", "default", "azure:///a", launched()))
			e.addNode(t, newNode("na", "azure:///a"))
			if tc.mate != nil {
				e.addClaim(t, tc.mate())
			}
			if tc.mateNode {
				e.addNode(t, newNode("nb", "azure:///b"))
			}
			if tc.inBatch {
				e.c.mates.add([]string{"a", "b"})
				if tc.firstSeen > 0 {
					e.c.mates.batches["a"].first = testNow.Add(-tc.firstSeen)
				}
			}
			assert.Equal(t, tc.want, e.c.batchWait(context.Background(), e.c.claim("a")))
			assert.Equal(t, tc.requeued, e.c.claimQ.Len())
			if tc.want == 0 {
				assert.Empty(t, e.c.mates.batches, "a released batch is forgotten")
				assert.Zero(t, e.c.batchWait(context.Background(), e.c.claim("a")))
			}
		})
	}
}

// TestBatchMatesOfOne: a batch of one claim has nobody to wait for.
func TestBatchMatesOfOne(t *testing.T) {
	t.Parallel()
	m := newBatchMates()
	m.add([]string{"a"})
	assert.Empty(t, m.batches)
}

// TestBatchMatesForgetFailed: a claim whose launch failed is forgotten by its reconcile, so a
// batch that never registers leaves nothing behind.
func TestBatchMatesForgetFailed(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	failed := withCondition(api.ConditionLaunched, metav1.ConditionFalse, "LaunchFailed", testNow)
	e.addClaim(t, testClaim("a", "default", "", failed), testClaim("b", "default", "", failed))
	e.c.mates.add([]string{"a", "b"})
	for _, name := range []string{"a", "b"} {
		_, err := e.c.reconcileClaim(context.Background(), name)
		require.NoError(t, err)
	}
	assert.Empty(t, e.c.mates.batches)
}

// TestBatchWaitWhileReleasing: while the claim that found the batch complete writes its
// nominations, a mate reconciled meanwhile (its node's own events) waits instead of registering:
// its taint would otherwise go before its pods' nominations exist. Once the batch is released,
// the mate registers.
func TestBatchWaitWhileReleasing(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.addClaim(t, testClaim("a", "default", "azure:///a", launched()), testClaim("b", "default", "azure:///b", launched()))
	e.addNode(t, newNode("na", "azure:///a"))
	e.addNode(t, newNode("nb", "azure:///b"))
	e.c.mates.add([]string{"a", "b"})
	names, wait := e.c.mates.release("a", testNow, e.c.allHaveNodes)
	require.Zero(t, wait)
	require.ElementsMatch(t, []string{"a", "b"}, names)

	assert.Equal(t, batchReleasePoll, e.c.batchWait(context.Background(), e.c.claim("b")), "a mate waits for the nominations")
	assert.Equal(t, batchReleasePoll, e.c.batchWait(context.Background(), e.c.claim("a")), "a second release is refused")
	e.c.mates.released(names)
	assert.Zero(t, e.c.batchWait(context.Background(), e.c.claim("b")))
	assert.Empty(t, e.c.mates.batches)
}
