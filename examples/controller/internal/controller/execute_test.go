package controller

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/provisioner"
)

// TestReplacementsReady: a replacement the cache has not shown yet is still coming (the informer
// lags the create), not a failure; one that was seen and then vanished, is being deleted or failed
// to launch fails the command; all initialized is ready.
func TestReplacementsReady(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cached  []*api.NodeClaim // what the informer holds
		seen    []string         // claims earlier polls saw
		ready   bool
		wantErr string
	}{
		{name: "not in the cache yet", ready: false},
		{name: "seen, then gone", seen: []string{"r1"}, wantErr: "replacement NodeClaim r1 failed"},
		{name: "launching", cached: []*api.NodeClaim{testClaim("r1", "default", "")}, ready: false},
		{name: "launch failed", cached: []*api.NodeClaim{testClaim("r1", "default", "",
			withCondition(api.ConditionLaunched, metav1.ConditionFalse, "LaunchFailed", testNow))},
			wantErr: "replacement NodeClaim r1 failed"},
		{name: "being deleted", cached: []*api.NodeClaim{testClaim("r1", "default", "", claimDeleting())},
			wantErr: "replacement NodeClaim r1 failed"},
		{name: "initialized", cached: []*api.NodeClaim{testClaim("r1", "default", pid("r1"), launched(), registered(), initialized())},
			ready: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			e.addClaim(t, tc.cached...)
			seen := map[string]bool{}
			for _, name := range tc.seen {
				seen[name] = true
			}
			ready, err := e.c.replacementsReady([]string{"r1"}, seen)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.ready, ready)
			assert.Equal(t, len(tc.cached) > 0, seen["r1"], "a claim the cache showed is remembered as seen")
		})
	}
}

// TestExecuteAll: a pass's commands run side by side; one that fails (its replacement's NodePool
// is gone) rolls back alone, untainted and no longer disrupting, and its error names it; the
// others delete their NodeClaims and their nodes stay marked disrupting until the Node goes, so a
// pass started before the informers show the deletions does not offer them again.
func TestExecuteAll(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	ctx := context.Background()
	for _, n := range []string{"n1", "n2", "n3"} {
		e.addNode(t, newNode(n, pid(n), isReady()))
		e.addClaim(t, testClaim("c-"+n, "default", pid(n), launched(), registered(), initialized()))
	}
	cmds := []consolidation.Command{
		{Kind: consolidation.CommandDelete, Reason: consolidation.ReasonEmpty, Nodes: []string{"n1"}},
		{Kind: consolidation.CommandDelete, Reason: consolidation.ReasonUnderutilized, Nodes: []string{"n2"}},
		{Kind: consolidation.CommandReplace, Reason: consolidation.ReasonUnderutilized, Nodes: []string{"n3"},
			Replacement: &provisioner.NodeClaim{Name: "r", NodePool: "gone"}},
	}
	err := e.c.executeAll(ctx, cmds)
	require.ErrorContains(t, err, "replace Underutilized of n3")
	require.ErrorContains(t, err, `NodePool "gone" is gone`)
	assert.NotContains(t, err.Error(), "of n1")
	assert.NotContains(t, err.Error(), "of n2")
	for _, name := range []string{"c-n1", "c-n2"} {
		_, err := e.dyn.Resource(NodeClaimsGVR).Get(ctx, name, metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "%s deleted: %v", name, err)
	}
	assert.NotNil(t, e.storedClaim(t, "c-n3"), "the failed command's claim stays")
	assert.False(t, hasTaint(e.storedNode(t, "n3").Spec.Taints, api.TaintKeyDisrupted), "the failed command is rolled back")
	assert.True(t, hasTaint(e.storedNode(t, "n1").Spec.Taints, api.TaintKeyDisrupted))
	assert.True(t, e.c.state.isDisrupting("n1"))
	assert.True(t, e.c.state.isDisrupting("n2"))
	assert.False(t, e.c.state.isDisrupting("n3"))
	e.c.state.forgetNode("n1")
	assert.False(t, e.c.state.isDisrupting("n1"), "a deleted Node is no longer disrupting")
}
