package controller

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestStartRunsCommandsOn: start returns at once, its commands running on: a replace waiting for
// its replacement to initialize holds the loop no longer (it held the whole pass before), its
// nodes marked disrupting meanwhile so that the next pass counts them against the budget and
// leaves them alone. A command that fails (its replacement's NodePool is gone) rolls back alone,
// untainted and no longer disrupting, and its error is logged with the command; a delete's
// nodes stay disrupting until their Node goes. The commands end with the context, and so does
// the wait for them.
func TestStartRunsCommandsOn(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	var logged syncBuffer
	e.c.log = slog.New(slog.NewTextHandler(&logged, nil))
	e.addClass(t, "default")
	e.addPool(t, poolOf("default", "default"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		e.addNode(t, newNode(n, pid(n), isReady()))
		e.addClaim(t, testClaim("c-"+n, "default", pid(n), launched(), registered(), initialized()))
	}
	cmds := []consolidation.Command{
		{Kind: consolidation.CommandDelete, Reason: consolidation.ReasonEmpty, Nodes: []string{"n1"}},
		{Kind: consolidation.CommandDelete, Reason: consolidation.ReasonUnderutilized, Nodes: []string{"n2"}},
		{Kind: consolidation.CommandReplace, Reason: consolidation.ReasonUnderutilized, Nodes: []string{"n3"},
			Replacement: &provisioner.NodeClaim{Name: "r", NodePool: "gone"}},
		{Kind: consolidation.CommandReplace, Reason: consolidation.ReasonUnderutilized, Nodes: []string{"n4"},
			Replacement: &provisioner.NodeClaim{Name: "booting", NodePool: "default", InstanceType: d2}},
	}
	began := time.Now()
	e.c.start(ctx, cmds)
	assert.Less(t, time.Since(began), time.Second, "start does not wait for its commands")
	assert.True(t, e.c.state.isDisrupting("n4"), "marked before start returns")

	require.Eventually(t, func() bool {
		// The rollback comes before the failure is logged: wait for both.
		return !e.c.state.isDisrupting("n3") && strings.Contains(logged.String(), `NodePool \"gone\" is gone`)
	}, 10*time.Second, 10*time.Millisecond, "the failed command rolls back and is logged; log: %s", logged.String())
	assert.Contains(t, logged.String(), "replace Underutilized of n3")
	assert.False(t, hasTaint(e.storedNode(t, "n3").Spec.Taints, api.TaintKeyDisrupted), "the failed command is rolled back")
	require.Eventually(t, func() bool {
		for _, name := range []string{"c-n1", "c-n2"} {
			if _, err := e.dyn.Resource(NodeClaimsGVR).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false
			}
		}
		return true
	}, 10*time.Second, 10*time.Millisecond, "the deletes delete their NodeClaims")
	assert.True(t, hasTaint(e.storedNode(t, "n1").Spec.Taints, api.TaintKeyDisrupted))
	assert.True(t, e.c.state.isDisrupting("n1"))
	assert.True(t, e.c.state.isDisrupting("n2"))
	assert.True(t, e.c.state.isDisrupting("n4"), "still waiting for its replacement")
	assert.NotNil(t, e.storedClaim(t, "c-n4"), "its claim stays until the replacement is up")
	e.c.state.forgetNode("n1")
	assert.False(t, e.c.state.isDisrupting("n1"), "a deleted Node is no longer disrupting")

	cancel()
	waited := make(chan struct{})
	go func() { e.c.commands.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("the commands did not end with their context")
	}
	assert.False(t, e.c.state.isDisrupting("n4"), "a command stopped before its replacement came up rolls back")
}

// syncBuffer is a bytes.Buffer the commands' goroutines may log to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
