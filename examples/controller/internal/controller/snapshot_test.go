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
)

const (
	d2 = "Standard_D2s_v3"
	d4 = "Standard_D4s_v3"
)

func pid(vm string) string {
	return "azure:///subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/" + vm
}

// newSnapshot indexes claims by provider ID and pods by node, as takeSnapshot does.
func newSnapshot(nodes []*corev1.Node, claims []*api.NodeClaim, pods ...*corev1.Pod) *snapshot {
	s := &snapshot{now: testNow, nodes: nodes, claims: claims, byID: map[string]*api.NodeClaim{},
		pods: map[string][]*corev1.Pod{},
		pools: []provisioner.NodePoolInput{{NodePool: &api.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
			InstanceTypes: []*instancetype.InstanceType{{Name: d2}, {Name: d4}}}}}
	for _, nc := range claims {
		if nc.Status.ProviderID != "" {
			s.byID[nc.Status.ProviderID] = nc
		}
	}
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			s.pods[p.Spec.NodeName] = append(s.pods[p.Spec.NodeName], p)
		} else {
			s.pending = append(s.pending, p)
		}
	}
	return s
}

// TestSnapshotRegisteredInitialized: a managed node is as registered and initialized as its
// NodeClaim says; an unmanaged one is registered unless it carries the unregistered taint, and
// initialized when Ready.
func TestSnapshotRegisteredInitialized(t *testing.T) {
	t.Parallel()
	unregistered := tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute)
	tests := []struct {
		name                  string
		node                  *corev1.Node
		claim                 *api.NodeClaim
		registered, initiated bool
	}{
		{name: "launched, node not registered yet", node: newNode("n", pid("a"), isReady(), unregistered),
			claim: testClaim("c", "default", pid("a"), launched())},
		{name: "registered, not initialized", node: newNode("n", pid("a"), isReady()),
			claim: testClaim("c", "default", pid("a"), launched(), registered()), registered: true},
		{name: "initialized", node: newNode("n", pid("a"), isReady()),
			claim: testClaim("c", "default", pid("a"), launched(), registered(), initialized()), registered: true, initiated: true},
		{name: "the claim wins over the node's taint and readiness", node: newNode("n", pid("a"), unregistered),
			claim: testClaim("c", "default", pid("a"), launched(), registered(), initialized()), registered: true, initiated: true},
		{name: "unmanaged, Ready", node: newNode("n", pid("a"), isReady()), registered: true, initiated: true},
		{name: "unmanaged, not Ready", node: newNode("n", pid("a")), registered: true},
		{name: "unmanaged, unregistered taint", node: newNode("n", pid("a"), isReady(), unregistered), initiated: true},
		{name: "claim of another VM", node: newNode("n", pid("a"), isReady()),
			claim: testClaim("c", "default", pid("b"), launched()), registered: true, initiated: true},
		{name: "no provider ID matches no claim", node: newNode("n", "", isReady()),
			claim: testClaim("c", "default", "", launched()), registered: true, initiated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var claims []*api.NodeClaim
			if tt.claim != nil {
				claims = append(claims, tt.claim)
			}
			s := newSnapshot([]*corev1.Node{tt.node}, claims)
			assert.Equal(t, tt.registered, s.registered(tt.node), "registered")
			assert.Equal(t, tt.initiated, s.initialized(tt.node), "initialized")
		})
	}
}

// TestSnapshotInFlight: the claims whose capacity is on its way are those not failed, not being
// deleted and not yet registered, of a known pool and instance type.
func TestSnapshotInFlight(t *testing.T) {
	t.Parallel()
	withType := func(name string) claimOpt { return withLabel(api.LabelInstanceType, name) }
	labelled := func(nc *api.NodeClaim) {
		nc.Labels[api.LabelZone], nc.Labels[api.LabelCapacityType] = "eastus-1", api.CapacityTypeSpot
	}
	launchList := func(types ...string) claimOpt {
		return func(nc *api.NodeClaim) {
			nc.Spec.Requirements = []api.NodeSelectorRequirementWithMinValues{
				{Key: api.LabelZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"eastus-1"}},
				{Key: api.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: types}}
		}
	}
	tests := []struct {
		name   string
		nodes  []*corev1.Node
		claims []*api.NodeClaim
		want   []provisioner.InFlightClaim
	}{
		{name: "not launched yet", claims: []*api.NodeClaim{testClaim("c", "default", "", withType(d2), labelled)},
			want: []provisioner.InFlightClaim{{Name: "c", NodePool: "default", InstanceType: d2, Zone: "eastus-1",
				CapacityType: api.CapacityTypeSpot}}},
		{name: "launched, no node yet", claims: []*api.NodeClaim{testClaim("c", "default", pid("a"), launched(), withType(d4))},
			want: []provisioner.InFlightClaim{{Name: "c", NodePool: "default", InstanceType: d4}}},
		{name: "node there but not registered",
			nodes:  []*corev1.Node{newNode("n", pid("a"), tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute))},
			claims: []*api.NodeClaim{testClaim("c", "default", pid("a"), launched(), withType(d2))},
			want:   []provisioner.InFlightClaim{{Name: "c", NodePool: "default", InstanceType: d2}}},
		{name: "registered: a node now", nodes: []*corev1.Node{newNode("n", pid("a"))},
			claims: []*api.NodeClaim{testClaim("c", "default", pid("a"), launched(), registered(), withType(d2))}},
		{name: "being deleted", claims: []*api.NodeClaim{testClaim("c", "default", "", withType(d2), claimDeleting())}},
		{name: "launch failed", claims: []*api.NodeClaim{testClaim("c", "default", "", withType(d2),
			withCondition(api.ConditionLaunched, metav1.ConditionFalse, reasonLaunchFailed, testNow))}},
		{name: "unknown pool", claims: []*api.NodeClaim{testClaim("c", "gone", "", withType(d2))}},
		{name: "instance type not in the pool's catalogue", claims: []*api.NodeClaim{testClaim("c", "default", "", withType("Standard_X"))}},
		{name: "no instance-type label: the first of the launch list",
			claims: []*api.NodeClaim{testClaim("c", "default", "", launchList(d4, d2))},
			want:   []provisioner.InFlightClaim{{Name: "c", NodePool: "default", InstanceType: d4}}},
		{name: "no instance type at all", claims: []*api.NodeClaim{testClaim("c", "default", "")}},
		// A registered node without a provider ID (a static or non-cloud node) must not make every
		// claim that has no provider ID yet look registered.
		{name: "not launched, next to a node without provider ID",
			nodes:  []*corev1.Node{newNode("static", "", isReady())},
			claims: []*api.NodeClaim{testClaim("c", "default", "", withType(d2))},
			want:   []provisioner.InFlightClaim{{Name: "c", NodePool: "default", InstanceType: d2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := newSnapshot(tt.nodes, tt.claims).inFlight()
			for i := range got {
				assert.Equal(t, tt.claims[0].Labels, got[i].Labels)
				got[i].Labels = nil
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestSnapshotExistingNodes: the provisioner may place pods on registered nodes not being deleted.
func TestSnapshotExistingNodes(t *testing.T) {
	t.Parallel()
	nodes := []*corev1.Node{
		newNode("booting", pid("a"), tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute)),
		newNode("initializing", pid("b")),
		newNode("ready", pid("c"), isReady()),
		newNode("leaving", pid("d"), isReady(), nodeDeleting()),
	}
	claims := []*api.NodeClaim{
		testClaim("a", "default", pid("a"), launched()),
		testClaim("b", "default", pid("b"), launched(), registered()),
	}
	p1, p2 := newPod("p1", boundTo("ready")), newPod("p2", boundTo("leaving"))
	got := newSnapshot(nodes, claims, p1, p2).existingNodes()
	require.Len(t, got, 2)
	assert.Equal(t, "initializing", got[0].Node.Name)
	assert.False(t, got[0].Initialized)
	assert.Empty(t, got[0].Pods)
	assert.Equal(t, "ready", got[1].Node.Name)
	assert.True(t, got[1].Initialized)
	assert.Equal(t, []*corev1.Pod{p1}, got[1].Pods)
}

// TestSnapshotReschedulable: the pods that must move off nodes being deleted, as pending copies.
func TestSnapshotReschedulable(t *testing.T) {
	t.Parallel()
	nodes := []*corev1.Node{newNode("leaving", pid("a"), nodeDeleting()), newNode("staying", pid("b"))}
	web := newPod("web", boundTo("leaving"))
	s := newSnapshot(nodes, nil,
		web,
		newPod("ds", boundTo("leaving"), daemon()),
		newPod("static", boundTo("leaving"), mirror()),
		newPod("done", boundTo("leaving"), withPhase(corev1.PodSucceeded)),
		newPod("going", boundTo("leaving"), deletedAt(testNow.Add(time.Minute))),
		newPod("other", boundTo("staying")),
	)
	got := s.reschedulable()
	require.Len(t, got, 1)
	assert.Equal(t, "web", got[0].Name)
	assert.Empty(t, got[0].Spec.NodeName)
	assert.Equal(t, "leaving", web.Spec.NodeName, "the cached pod is not modified")
}

func TestFirstInstanceType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		reqs []api.NodeSelectorRequirementWithMinValues
		want string
	}{
		{"none", nil, ""},
		{"other keys only", []api.NodeSelectorRequirementWithMinValues{{Key: api.LabelZone, Values: []string{"eastus-1"}}}, ""},
		{"empty values", []api.NodeSelectorRequirementWithMinValues{{Key: api.LabelInstanceType}}, ""},
		{"cheapest first", []api.NodeSelectorRequirementWithMinValues{
			{Key: api.LabelZone, Values: []string{"eastus-1"}},
			{Key: api.LabelInstanceType, Values: []string{d2, d4}}}, d2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			nc := testClaim("c", "default", "")
			nc.Spec.Requirements = tt.reqs
			assert.Equal(t, tt.want, firstInstanceType(nc))
		})
	}
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
	e.addPod(t,
		newPod("bound", boundTo("a")),
		newPod("waiting", unschedulable()),
		newPod("ds-waiting", unschedulable(), daemon()),
		nominated,
		newPod("new"), // not yet seen by kube-scheduler
	)

	s := e.c.takeSnapshot()
	assert.Equal(t, testNow, s.now)
	assert.Equal(t, []string{"a", "b"}, mapSlice(s.nodes, func(n *corev1.Node) string { return n.Name }))
	assert.Equal(t, []string{"a", "c"}, mapSlice(s.claims, func(nc *api.NodeClaim) string { return nc.Name }))
	require.Len(t, s.byID, 1)
	assert.Equal(t, "a", s.byID[pid("a")].Name)
	assert.Equal(t, []string{"bound"}, mapSlice(s.pods["a"], func(p *corev1.Pod) string { return p.Name }))
	assert.Equal(t, []string{"waiting"}, mapSlice(s.pending, func(p *corev1.Pod) string { return p.Name }))
	require.Len(t, s.pools, 1, "the pool without its node class and the invalid pool are left out")
	assert.Equal(t, "default", s.pools[0].NodePool.Name)
	assert.Equal(t, cat.InstanceTypes, s.pools[0].InstanceTypes)
	assert.Equal(t, []string{"default"}, mapSlice(s.classes, func(c *api.AKSNodeClass) string { return c.Name }))
	assert.NotNil(t, s.pool("default"))
	assert.Nil(t, s.pool("orphan"))
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
	s := newSnapshot(nodes, claims, pending, onManaged)
	s.classes = []*api.AKSNodeClass{{ObjectMeta: metav1.ObjectMeta{Name: "default"}}}

	e.c.state.setDisrupting([]string{"disrupting"}, true)
	e.c.state.nominate("claim-nominated", testNow.Add(time.Minute), testNow)
	e.c.state.nominate("expired-nomination", testNow.Add(-time.Second), testNow.Add(-time.Minute))
	e.c.state.nominate("plain", testNow.Add(time.Minute), testNow.Add(-time.Minute))
	lastEvent := testNow.Add(-30 * time.Second)
	e.c.state.podEvent("managed", lastEvent)

	in := e.c.consolidationInput(s)

	assert.Equal(t, testNow, in.Now)
	assert.Equal(t, []*corev1.Pod{pending}, in.PendingPods)
	assert.Equal(t, s.pools, in.NodePools)
	assert.Equal(t, s.classes, in.NodeClasses)
	assert.Equal(t, []*policyv1.PodDisruptionBudget{pdb}, in.PodDisruptionBudgets)
	assert.Equal(t, []*appsv1.DaemonSet{ds}, in.DaemonSets)
	assert.True(t, in.Options.AllowSplit, "options come from the config")
	assert.Equal(t, uint64(7), in.Options.Provisioner.Seed, "the config's seed")
	assert.Equal(t, []provisioner.InFlightClaim{{Name: "booting", NodePool: "default", InstanceType: d2,
		Labels: claims[0].Labels}}, in.InFlight, "unregistered nodes are left to InFlight")

	type row struct {
		name                             string
		claim                            string
		initialized, deleting, nominated bool
		initializedAt, lastPodEventAt    time.Time
		pods                             int
	}
	want := []row{
		{name: "plain", initialized: true, nominated: true},
		{name: "managed", claim: "managed", initialized: true, initializedAt: initAt, lastPodEventAt: lastEvent, pods: 1},
		{name: "deleted", claim: "deleted", initialized: true, initializedAt: initAt, deleting: true},
		{name: "disrupting", claim: "disrupting", initialized: true, initializedAt: initAt, deleting: true},
		{name: "claim-deleting", claim: "claim-deleting", initialized: true, initializedAt: initAt, deleting: true},
		{name: "claim-nominated", claim: "claim-nominated", initialized: true, initializedAt: initAt, nominated: true},
		{name: "expired-nomination", claim: "expired-nomination", initialized: true, initializedAt: initAt},
	}
	got := mapSlice(in.Nodes, func(n consolidation.Node) row {
		r := row{name: n.Node.Name, initialized: n.Initialized, deleting: n.Deleting, nominated: n.Nominated,
			initializedAt: n.InitializedAt, lastPodEventAt: n.LastPodEventAt, pods: len(n.Pods)}
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
	require.NoError(t, e.c.disrupt(context.Background()))
	assert.Empty(t, e.kube.Actions())
}

// TestProvisionable: the pods a snapshot counts as pending, Karpenter's test.
func TestProvisionable(t *testing.T) {
	t.Parallel()
	nominated := newPod("p", unschedulable())
	nominated.Status.NominatedNodeName = "n1"
	scheduledFalseOtherReason := newPod("p", unschedulable())
	scheduledFalseOtherReason.Status.Conditions[0].Reason = "SchedulingGated"
	tests := []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"unschedulable", newPod("p", unschedulable()), true},
		{"not seen by kube-scheduler yet", newPod("p", withPhase(corev1.PodPending)), false},
		{"bound", newPod("p", unschedulable(), boundTo("n1")), false},
		{"preempting (nominated)", nominated, false},
		{"gated", scheduledFalseOtherReason, false},
		{"being deleted", newPod("p", unschedulable(), deletedAt(testNow)), false},
		{"failed", newPod("p", unschedulable(), withPhase(corev1.PodFailed)), false},
		{"DaemonSet pod", newPod("p", unschedulable(), daemon()), false},
		{"mirror pod", newPod("p", unschedulable(), mirror()), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, provisionable(tt.pod))
		})
	}
}
