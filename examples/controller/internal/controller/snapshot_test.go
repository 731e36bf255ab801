package controller

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/snapshot"
)

const (
	d2 = "Standard_D2s_v3"
	d4 = "Standard_D4s_v3"
)

func pid(vm string) string {
	return "azure:///subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/" + vm
}

// addPool and addClass put a NodePool and an AKSNodeClass in the informer caches.
func (e *testEnv) addPool(t *testing.T, pool *api.NodePool) {
	t.Helper()
	pool.APIVersion, pool.Kind = api.KarpenterVersion, api.KindNodePool
	u, err := ToUnstructured(pool)
	require.NoError(t, err)
	require.NoError(t, e.c.inf.pools.GetIndexer().Add(u))
}

func (e *testEnv) addClass(t *testing.T, name string) {
	t.Helper()
	class := &api.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: name}}
	class.APIVersion, class.Kind = api.AzureVersion, api.KindAKSNodeClass
	u, err := ToUnstructured(class)
	require.NoError(t, err)
	require.NoError(t, e.c.inf.classes.GetIndexer().Add(u))
}

func poolOf(name, class string) *api.NodePool {
	pool := &api.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	pool.Spec.Template.Spec.NodeClassRef = &api.NodeClassReference{Name: class}
	return pool
}

// TestTakeSnapshot: the snapshot sorts the caches into what a decision reads.
func TestTakeSnapshot(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	cat := &instancetype.Catalogue{InstanceTypes: []*instancetype.InstanceType{{Name: d2}}}
	e.c.catalogues = newCatalogueCache(func(*api.AKSNodeClass) (*instancetype.Catalogue, error) { return cat, nil },
		e.c.cfg.Offerings)
	e.addClass(t, "default")
	e.addPool(t, poolOf("default", "default"))
	e.addPool(t, poolOf("orphan", "missing"))
	invalid := poolOf("Invalid_Name", "default")
	e.addPool(t, invalid)
	e.addNode(t, newNode("b", pid("b")), newNode("a", pid("a")))
	e.addClaim(t, testClaim("a", "default", pid("a"), launched()), testClaim("c", "default", ""))
	nominated := newPod("nominated", unschedulable())
	nominated.Status.NominatedNodeName = "a"
	gated := newPod("gated")
	gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
	e.addPod(t,
		newPod("bound", boundTo("a")),
		newPod("waiting", unschedulable()),
		newPod("ds-waiting", unschedulable(), daemon()),
		nominated,
		newPod("new"), // not yet seen by kube-scheduler
		gated,
	)

	e.c.cfg.WaitForScheduler = true
	s := e.c.takeSnapshot()
	assert.Equal(t, testNow, s.Now)
	assert.Equal(t, []string{"a", "b"}, mapSlice(s.Nodes, func(n snapshot.Node) string { return n.Node.Node.Name }))
	assert.Equal(t, []string{"a", "c"}, mapSlice(s.claims, func(nc *api.NodeClaim) string { return nc.Name }))
	a, ok := s.Node("a")
	require.True(t, ok)
	assert.Equal(t, "a", a.NodeClaim.Name, "matched by provider ID")
	assert.Equal(t, []string{"bound", "nominated"}, mapSlice(a.Pods, func(p *corev1.Pod) string { return p.Name }),
		"the pod nominated to a takes its room there")
	assert.True(t, a.Nominated, "and keeps it from consolidation")
	assert.Equal(t, []string{"waiting"}, mapSlice(s.Pending, func(p *corev1.Pod) string { return p.Name }),
		"waiting for kube-scheduler: only pods it gave up on are pending")
	e.c.cfg.WaitForScheduler = false
	assert.ElementsMatch(t, []string{"waiting", "new"}, mapSlice(e.c.takeSnapshot().Pending, func(p *corev1.Pod) string { return p.Name }),
		"not waiting: every unbound pod but the nominated, gated and DaemonSet ones")
	in := s.ProvisionerInput(provisioner.Options{})
	require.Len(t, in.NodePools, 1, "the pool without its node class and the invalid pool are left out")
	assert.Equal(t, "default", in.NodePools[0].NodePool.Name)
	assert.Equal(t, cat.InstanceTypes, in.NodePools[0].InstanceTypes)
	_, ok = s.Pool("default")
	assert.True(t, ok)
	_, ok = s.Pool("orphan")
	assert.False(t, ok)
}

// TestConsolidationInput: what consolidation reads from a snapshot and the controller's memory.
func TestConsolidationInput(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.c.cfg.Consolidation = consolidation.Options{AllowSplit: true}
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "pdb", Namespace: "default"}}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "kube-system"}}
	require.NoError(t, e.c.inf.pdbs.GetIndexer().Add(pdb))
	require.NoError(t, e.c.inf.daemonSets.GetIndexer().Add(ds))

	initAt := testNow.Add(-time.Minute)
	nodes := []*corev1.Node{
		newNode("booting", pid("booting"), tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute)),
		newNode("plain", pid("plain"), isReady()),
		newNode("managed", pid("managed"), isReady()),
		newNode("deleted", pid("deleted"), isReady(), nodeDeleting()),
		newNode("disrupting", pid("disrupting"), isReady()),
		newNode("claim-deleting", pid("claim-deleting"), isReady()),
		newNode("claim-nominated", pid("claim-nominated"), isReady()),
		newNode("expired-nomination", pid("expired-nomination"), isReady()),
		newNode("unmanaged-booting", "", tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute)),
	}
	ready := []claimOpt{launched(), registered(),
		withCondition(api.ConditionInitialized, metav1.ConditionTrue, "Initialized", initAt), withLabel(api.LabelInstanceType, d2)}
	claims := []*api.NodeClaim{
		testClaim("booting", "default", pid("booting"), launched(), withLabel(api.LabelInstanceType, d2)),
		testClaim("managed", "default", pid("managed"), ready...),
		testClaim("deleted", "default", pid("deleted"), ready...),
		testClaim("disrupting", "default", pid("disrupting"), ready...),
		testClaim("claim-deleting", "default", pid("claim-deleting"), append(ready, claimDeleting())...),
		testClaim("claim-nominated", "default", pid("claim-nominated"), ready...),
		testClaim("expired-nomination", "default", pid("expired-nomination"), ready...),
	}
	pending := newPod("pending", unschedulable())
	onManaged := newPod("web", boundTo("managed"))
	cat := &instancetype.Catalogue{InstanceTypes: []*instancetype.InstanceType{{Name: d2}, {Name: d4}}}
	e.c.catalogues = newCatalogueCache(func(*api.AKSNodeClass) (*instancetype.Catalogue, error) { return cat, nil },
		e.c.cfg.Offerings)
	e.addClass(t, "default")
	e.addPool(t, poolOf("default", "default"))
	e.addNode(t, nodes...)
	e.addClaim(t, claims...)
	e.addPod(t, pending, onManaged)

	e.c.state.setDisrupting([]string{"disrupting"}, true)
	e.c.state.nominate("claim-nominated", testNow.Add(time.Minute), testNow)
	e.c.state.nominate("expired-nomination", testNow.Add(-time.Second), testNow.Add(-time.Minute))
	e.c.state.nominate("plain", testNow.Add(time.Minute), testNow.Add(-time.Minute))
	lastEvent := testNow.Add(-30 * time.Second)
	e.c.state.podEvent("managed", lastEvent)

	in := e.c.consolidationInput(t.Context(), e.c.takeSnapshot())

	assert.Equal(t, testNow, in.Now)
	assert.Equal(t, []string{"pending"}, mapSlice(in.PendingPods, func(p *corev1.Pod) string { return p.Name }))
	require.Len(t, in.NodePools, 1)
	assert.Equal(t, cat.InstanceTypes, in.NodePools[0].InstanceTypes)
	assert.Equal(t, []string{"default"}, mapSlice(in.NodeClasses, func(c *api.AKSNodeClass) string { return c.Name }))
	assert.Equal(t, []*policyv1.PodDisruptionBudget{pdb}, in.PodDisruptionBudgets)
	assert.Equal(t, []*appsv1.DaemonSet{ds}, in.DaemonSets)
	assert.True(t, in.Options.AllowSplit, "options come from the config")
	assert.Equal(t, uint64(7), in.Options.Provisioner.Seed, "the config's seed")
	assert.Equal(t, t.Context().Done(), in.Options.Stop, "the pass stops with the context")
	assert.Equal(t, []provisioner.InFlightClaim{{Name: "booting", NodePool: "default", InstanceType: d2,
		Labels: claims[0].Labels}}, in.InFlight, "unregistered nodes are left to InFlight")

	type row struct {
		name                             string
		claim                            string
		initialized, deleting, nominated bool
		initializedAt, lastPodEventAt    time.Time
		pods                             int
	}
	want := []row{ // sorted by name; "booting" and "unmanaged-booting" have not registered
		{name: "claim-deleting", claim: "claim-deleting", initialized: true, initializedAt: initAt, deleting: true},
		{name: "claim-nominated", claim: "claim-nominated", initialized: true, initializedAt: initAt, nominated: true},
		{name: "deleted", claim: "deleted", initialized: true, initializedAt: initAt, deleting: true},
		{name: "disrupting", claim: "disrupting", initialized: true, initializedAt: initAt, deleting: true},
		{name: "expired-nomination", claim: "expired-nomination", initialized: true, initializedAt: initAt},
		{name: "managed", claim: "managed", initialized: true, initializedAt: initAt, lastPodEventAt: lastEvent, pods: 1},
		{name: "plain", initialized: true, nominated: true},
	}
	got := mapSlice(in.Nodes, func(n consolidation.Node) row {
		r := row{name: n.Node.Name, initialized: n.Initialized, deleting: n.Deleting, nominated: n.Nominated,
			initializedAt: n.InitializedAt.In(time.UTC), lastPodEventAt: n.LastPodEventAt.In(time.UTC), pods: len(n.Pods)}
		if n.NodeClaim != nil {
			r.claim = n.NodeClaim.Name
		}
		return r
	})
	assert.Equal(t, want, got)
}

// TestDisruptWithNothingToDo: a disruption pass over an empty cluster decides nothing and writes
// nothing (no ValidationDelay wait either).
func TestDisruptWithNothingToDo(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.c.cfg.ValidationDelay = time.Hour
	r, err := e.c.disrupt(context.Background(), nil, nil)
	require.NoError(t, err)
	assert.Zero(t, r.started)
	assert.Nil(t, r.next, "nothing proposed, nothing carried to the next pass")
	assert.Empty(t, e.kube.Actions())
}

// TestDisruptStopsWithItsContext: a pass whose context has ended decides nothing (Decide returns
// consolidation.ErrStopped before compiling the cluster) and writes nothing, so a controller
// shutting down does not wait for a pass over thousands of nodes (docs/benchmarks.md, issue 18).
func TestDisruptStopsWithItsContext(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.addPool(t, poolOf("default", "default"))
	e.addNode(t, newNode("n", "", isReady()))
	e.kube.ClearActions()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := e.c.disrupt(ctx, nil, nil)
	require.ErrorIs(t, err, consolidation.ErrStopped)
	assert.Zero(t, r.started)
	assert.Nil(t, r.next)
	assert.Empty(t, e.kube.Actions())
}
