package controller

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/launch"
)

// chainEnv is a test controller over n empty, initialized nodes of one pool with the default
// budget (10 %, rounded up), priced from the embedded catalogue.
func chainEnv(t *testing.T, n int) *testEnv {
	t.Helper()
	e := newTestEnv(t)
	catalogue, err := NewCatalogue("eastus", api.DefaultClusterNetwork(), launch.NewUnavailableOfferings(nil))
	require.NoError(t, err)
	e.c.catalogues = newCatalogueCache(catalogue, e.c.cfg.Offerings)
	e.addClass(t, "default")
	pool := poolOf("default", "default")
	pool.Default()
	e.addPool(t, pool)
	labels := map[string]string{api.LabelNodePool: "default", api.LabelInstanceType: d2, api.LabelZone: "eastus-1",
		api.LabelCapacityType: api.CapacityTypeOnDemand, corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux",
		api.LabelNodeInitialized: "true", api.LabelNodeRegistered: "true"}
	for i := range n {
		name := fmt.Sprintf("n%02d", i)
		e.addNode(t, newNode(name, pid(name), isReady(), func(node *corev1.Node) {
			for k, v := range labels {
				node.Labels[k] = v
			}
			node.CreationTimestamp.Time = testNow.Add(-time.Hour)
		}))
		e.addClaim(t, testClaim(name, "default", pid(name), launched(), registered(), initialized(), withLabel(api.LabelInstanceType, d2)))
	}
	return e
}

// firstDecision is e's pass input and the plan Decide makes of it: one command, as the default
// budget allows one node of ten.
func firstDecision(t *testing.T, e *testEnv) (consolidation.Input, *consolidation.Plan) {
	t.Helper()
	in := e.c.consolidationInput(t.Context(), e.c.takeSnapshot())
	first, err := consolidation.Decide(in)
	require.NoError(t, err)
	require.Len(t, first.Commands, 1, "10 % of 10 nodes")
	return in, first
}

// TestDecideChain: ten empty nodes at the default budget, one node per pass. The pass's own plan
// deletes one; the chain decides the next passes' deletes ahead, one distinct node each, as far as
// its step limit, the same as the passes one at a time would (checked by deciding them one after
// another on the cluster with the nodes removed).
func TestDecideChain(t *testing.T) {
	t.Parallel()
	in, first := firstDecision(t, chainEnv(t, 10))
	require.Equal(t, consolidation.ReasonEmpty, first.Commands[0].Reason)

	steps := decideChain(t.Context(), in, first, chainLimits{steps: 5, decideFor: time.Minute})
	require.Len(t, steps, 5, "the step limit")
	removed := slices.Clone(first.Commands[0].Nodes)
	for i, step := range steps {
		require.Len(t, step.Commands, 1, "step %d", i+1)
		assert.Equal(t, consolidation.ReasonEmpty, step.Commands[0].Reason)
		for _, node := range step.Commands[0].Nodes {
			assert.NotContains(t, removed, node, "step %d deletes a node a step before it took", i+1)
		}

		// The pass one at a time: the cluster without the nodes removed so far decides the same.
		without := in
		without.Nodes = slices.DeleteFunc(slices.Clone(in.Nodes), func(n consolidation.Node) bool {
			return slices.Contains(removed, n.Node.Name)
		})
		alone, err := consolidation.Decide(without)
		require.NoError(t, err)
		require.Len(t, alone.Commands, 1)
		assert.Equal(t, alone.Commands[0].Nodes, step.Commands[0].Nodes, "step %d", i+1)
		removed = append(removed, step.Commands[0].Nodes...)
	}
}

// TestDecideChainStops: no chain without deletes to decide ahead of, nor past its time.
func TestDecideChainStops(t *testing.T) {
	t.Parallel()
	in, first := firstDecision(t, chainEnv(t, 10))
	assert.Empty(t, decideChain(t.Context(), in, &consolidation.Plan{}, chainLimits{steps: 5, decideFor: time.Minute}), "nothing proposed")
	assert.Empty(t, decideChain(t.Context(), in, first, chainLimits{steps: 0, decideFor: time.Minute}), "no steps allowed")
	assert.Empty(t, decideChain(t.Context(), in, first, chainLimits{steps: 5, decideFor: 0}), "no time")
	replace := &consolidation.Plan{Commands: []consolidation.Command{{Kind: consolidation.CommandReplace,
		Reason: consolidation.ReasonUnderutilized, Nodes: []string{"n00"}}}}
	assert.Empty(t, decideChain(t.Context(), in, replace, chainLimits{steps: 5, decideFor: time.Minute}), "a replace keeps its nodes")
	drift := &consolidation.Plan{Commands: []consolidation.Command{{Kind: consolidation.CommandDelete,
		Reason: consolidation.ReasonDrifted, Nodes: []string{"n00"}}}}
	assert.Empty(t, decideChain(t.Context(), in, drift, chainLimits{steps: 5, decideFor: time.Minute}), "drift is validated by deciding again")
}

// TestDisruptRunsChain: one pass over ten empty nodes at the default budget starts the first
// delete after the validation delay and then the chain's, one after another as each node goes,
// never two nodes disrupted at once (what the budget allows), and every started command deleted
// its NodeClaim.
func TestDisruptRunsChain(t *testing.T) {
	t.Parallel()
	e, ctx, most := runningChainEnv(t)

	began := time.Now()
	r, err := e.c.disrupt(ctx, nil, nil)
	require.NoError(t, err)
	e.c.commands.Wait()
	assert.GreaterOrEqual(t, r.started, 3, "the first command and at least two of the chain")
	// A validation delay per command would take at least started delays; the chain pays one for
	// all of them. The bound is that, not a fixed margin over one delay: the race detector on a
	// shared 2-core machine stretched a 2 s delay's pass past 4 s (CI, twentieth session).
	assert.Less(t, time.Since(began), time.Duration(r.started)*e.c.cfg.ValidationDelay,
		"one validation delay for all of them, not one each")
	assert.LessOrEqual(t, most.Load(), int64(1), "the budget allows one node at a time")
	left := 10 - r.started
	assert.Eventually(t, func() bool { return len(e.c.inf.nodes.GetStore().List()) == left }, 5*time.Second,
		10*time.Millisecond, "every started delete took its node")
	claims, err := e.dyn.Resource(NodeClaimsGVR).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, claims.Items, left, "and its NodeClaim")
}

// runningChainEnv is chainEnv(t, 10) with a 2 s validation delay and terminateDisrupted running
// until the test ends; it returns the environment, the test's context and the most nodes seen
// disrupted at once.
func runningChainEnv(t *testing.T) (*testEnv, context.Context, *atomic.Int64) {
	t.Helper()
	e := chainEnv(t, 10)
	e.c.cfg.ValidationDelay, e.c.cfg.DisruptionInterval = 2*time.Second, 5*time.Second
	return e, t.Context(), terminateDisrupted(t.Context(), e)
}

// terminateDisrupted stands in for termination: a disrupted node whose NodeClaim (of the same
// name) the command deleted leaves the caches and the state 20 ms later, as its Node's deletion
// would. It returns the most nodes ever seen disrupted at once.
func terminateDisrupted(ctx context.Context, e *testEnv) *atomic.Int64 {
	var most atomic.Int64
	since := map[string]time.Time{}
	go func() {
		for ctx.Err() == nil {
			var now int64
			for _, obj := range e.c.inf.nodes.GetStore().List() {
				node := obj.(*corev1.Node)
				if !e.c.state.isDisrupting(node.Name) {
					continue
				}
				now++
				if _, err := e.dyn.Resource(NodeClaimsGVR).Get(ctx, node.Name, metav1.GetOptions{}); err == nil {
					continue // the command has not deleted its NodeClaim yet
				}
				if since[node.Name].IsZero() {
					since[node.Name] = time.Now()
				} else if time.Since(since[node.Name]) > 20*time.Millisecond {
					_ = e.c.inf.nodes.GetStore().Delete(node)
					e.c.state.forgetNode(node.Name)
				}
			}
			if now > most.Load() {
				most.Store(now)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return &most
}

// TestChainRunsWhenThePlanFails: the pass's own delete no longer holds at validation (a pod came
// to its node meanwhile, as kube-scheduler may put a drained node's pods there); the chain's
// steps are validated on the cluster alone and still run, and that node stays.
func TestChainRunsWhenThePlanFails(t *testing.T) {
	t.Parallel()
	e, ctx, _ := runningChainEnv(t)
	_, first := firstDecision(t, e)
	kept := first.Commands[0].Nodes[0]
	time.AfterFunc(e.c.cfg.ValidationDelay/2, func() { _ = e.c.inf.pods.GetIndexer().Add(newPod("arrived", boundTo(kept))) })

	r, err := e.c.disrupt(ctx, nil, nil)
	require.NoError(t, err)
	e.c.commands.Wait()
	assert.GreaterOrEqual(t, r.started, 2, "the chain's steps")
	assert.Nil(t, r.next, "no stale decision carried after the chain started")
	_, there, err := e.c.inf.nodes.GetStore().GetByKey(kept)
	require.NoError(t, err)
	assert.True(t, there, "the node that got a pod stays")
	assert.False(t, e.c.state.isDisrupting(kept))
}
