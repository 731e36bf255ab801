package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/napkit/napkit/api"
)

// storePod puts the pod in the informer cache and in the fake API server (a patch needs it there).
func (e *testEnv) storePod(t *testing.T, pods ...*corev1.Pod) {
	t.Helper()
	for _, pod := range pods {
		e.addPod(t, pod)
		_, err := e.kube.CoreV1().Pods(pod.Namespace).Create(context.Background(), pod.DeepCopy(), metav1.CreateOptions{})
		require.NoError(t, err)
	}
}

func pending() podOpt { return withPhase(corev1.PodPending) }
func nominatedTo(node string) podOpt {
	return func(p *corev1.Pod) { p.Status.NominatedNodeName = node }
}
func requesting(cpu, memory string) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}}})
	}
}

// hostnameAntiAffinity gives the pod a required anti-affinity per hostname.
func hostnameAntiAffinity(p *corev1.Pod) {
	p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: corev1.LabelHostname}}}}
}

// registeredFor marks the node registered by claim, as register does (label, owner).
func registeredFor(claim string) nodeOpt {
	return func(n *corev1.Node) {
		n.Labels[api.LabelNodeRegistered] = "true"
		n.OwnerReferences = []metav1.OwnerReference{{APIVersion: api.KarpenterVersion, Kind: api.KindNodeClaim, Name: claim}}
	}
}
func allocatable(cpu, memory string) nodeOpt {
	return func(n *corev1.Node) {
		n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	}
}

// podNodeWrites lists the fake API server's write actions as "verb resource[/subresource] name".
func podNodeWrites(e *testEnv) []string {
	var out []string
	for _, a := range e.kube.Actions() {
		if a.GetVerb() == "get" || a.GetVerb() == "list" || a.GetVerb() == "watch" {
			continue
		}
		res := a.GetResource().Resource
		if a.GetSubresource() != "" {
			res += "/" + a.GetSubresource()
		}
		name := ""
		switch x := a.(type) {
		case k8stesting.PatchAction:
			name = x.GetName()
		case k8stesting.UpdateAction:
			name = x.GetObject().(metav1.Object).GetName()
		}
		out = append(out, a.GetVerb()+" "+res+" "+name)
	}
	return out
}

func storedNomination(t *testing.T, e *testEnv, name string) string {
	t.Helper()
	pod, err := e.kube.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return pod.Status.NominatedNodeName
}

// registering sets the nomination policy and adds a launched claim default-1 whose node
// aks-default-1 (4 cores, Ready) still has karpenter.sh/unregistered: what register is given.
func (e *testEnv) registering(t *testing.T, policy NominatePolicy) (*corev1.Node, *api.NodeClaim) {
	t.Helper()
	e.c.cfg.NominatePods = policy
	node := newNode("aks-default-1", testProviderID, isReady(), allocatable("4", "16Gi"),
		tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute))
	nc := testClaim("default-1", "default", testProviderID, launched())
	e.addNode(t, node)
	e.addClaim(t, nc)
	return node, nc
}

// TestNominateBeforeUntaint: registration nominates the pending pods planned on the claim (or on
// its node by name) to the node, and only then removes karpenter.sh/unregistered: the taint's
// removal makes kube-scheduler try them, and a nomination written after a failed try would be
// cleared by it. Pods bound, planned elsewhere or already nominated there get no patch.
func TestNominateBeforeUntaint(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	node, nc := e.registering(t, NominateAll)
	e.storePod(t, newPod("a", pending()), newPod("b", pending()), newPod("c", boundTo("aks-other")),
		newPod("d", pending()), newPod("e", pending(), nominatedTo("aks-default-1")))
	e.c.planned.record("default-1", []string{"default/a", "default/c", "default/e"}, testNow)
	e.c.planned.record("aks-default-1", []string{"default/b"}, testNow)
	e.c.planned.record("default-2", []string{"default/d"}, testNow)
	e.kube.ClearActions()

	require.NoError(t, e.c.register(context.Background(), nc, node))

	got := podNodeWrites(e)
	require.Len(t, got, 3, "two nominations, one node update: %v", got)
	assert.ElementsMatch(t, []string{"patch pods/status a", "patch pods/status b"}, got[:2])
	assert.Equal(t, "update nodes aks-default-1", got[2], "the taint goes after the nominations")
	assert.Empty(t, e.storedNode(t, node.Name).Spec.Taints)
	for pod, want := range map[string]string{"a": "aks-default-1", "b": "aks-default-1", "c": "", "d": "", "e": "aks-default-1"} {
		assert.Equal(t, want, storedNomination(t, e, pod), "pod %s", pod)
	}

	// A second registration pass (the claim's reconcile runs again when the node's update arrives,
	// before the informer shows the patches) does not nominate again.
	e.kube.ClearActions()
	require.NoError(t, e.c.register(context.Background(), nc, e.storedNode(t, node.Name)))
	for _, w := range podNodeWrites(e) {
		assert.NotContains(t, w, "pods/status")
	}
}

// TestNominateOffWritesNothing: off leaves pods alone. The default, predicted, nominates only the
// pods its prediction marked (TestNominatePredicted); the same unmarked pod gets no patch under it.
func TestNominateOffWritesNothing(t *testing.T) {
	t.Parallel()
	for _, policy := range []NominatePolicy{NominateOff, ""} {
		t.Run(string(policy), func(t *testing.T) {
			t.Parallel()
			nominateNothing(t, policy)
		})
	}
}

func nominateNothing(t *testing.T, policy NominatePolicy) {
	e := newTestEnv(t)
	require.Equal(t, NominatePredicted, e.c.cfg.NominatePods, "the default")
	if policy != "" {
		e.c.cfg.NominatePods = policy
	}
	node := newNode("aks-default-1", testProviderID, isReady(), tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute))
	nc := testClaim("default-1", "default", testProviderID, launched())
	e.addNode(t, node)
	e.addClaim(t, nc)
	e.storePod(t, newPod("a", pending()))
	e.c.planned.record("default-1", []string{"default/a"}, testNow)
	e.kube.ClearActions()
	require.NoError(t, e.c.register(context.Background(), nc, node))
	e.c.renominate(context.Background())
	assert.Equal(t, []string{"update nodes aks-default-1"}, podNodeWrites(e))
}

// TestNominateReplanned: with NominateReplanned, registration nominates only the planned pods a
// hold had released before (their first node was given away by kube-scheduler); a pod planned
// once gets no patch.
func TestNominateReplanned(t *testing.T) {
	t.Parallel()
	e := plannedEnv(t)
	node, nc := e.registering(t, NominateReplanned)
	e.storePod(t, newPod("first", unschedulable()), newPod("again", unschedulable()))

	// "again" was planned on a node that is gone: the hold releases it, and the next plan puts
	// it on default-1 with "first".
	e.c.planned.record("nowhere", []string{"default/again"}, testNow.Add(-time.Minute))
	s := e.c.takeSnapshot()
	holdFresh(s, e.c.planned, 20*time.Second)
	require.True(t, e.c.planned.wasReplanned("default/again"))
	require.False(t, e.c.planned.wasReplanned("default/first"))
	e.c.planned.record("default-1", []string{"default/first", "default/again"}, testNow)
	e.kube.ClearActions()

	require.NoError(t, e.c.register(context.Background(), nc, node))
	assert.Equal(t, []string{"patch pods/status again", "update nodes aks-default-1"}, podNodeWrites(e))
	assert.Equal(t, "aks-default-1", storedNomination(t, e, "again"))
	assert.Empty(t, storedNomination(t, e, "first"))
}

// TestRenominate: a provisioning pass nominates held pods whose target is a registered node and
// who lack its nomination (a plan onto an existing node, or a nomination kube-scheduler cleared),
// at most maxNominations times per pod and node and not again within renominateAfter (the
// informer may not show the last patch yet); targets not taking pods yet get none.
func TestRenominate(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.c.cfg.NominatePods = NominateAll
	now := testNow
	e.c.cfg.Clock = func() time.Time { return now }
	const otherID = "azure:///subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/aks-default-3"
	e.addNode(t, newNode("aks-default-1", testProviderID, isReady(), registeredFor("default-1")),
		newNode("aks-default-3", otherID, isReady(), tainted(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute)),
		newNode("aks-default-4", "", isReady(), registeredFor("default-4"), nodeDeleting()))
	up := testClaim("default-1", "default", testProviderID, launched(), registered())
	up.Status.NodeName = "aks-default-1"
	e.addClaim(t, up, testClaim("default-2", "default", "", launched()), testClaim("default-3", "default", otherID, launched()))
	e.storePod(t, newPod("cleared", pending()), newPod("onNode", pending()), newPod("inFlight", pending()),
		newPod("unregistered", pending()), newPod("kept", pending(), nominatedTo("aks-default-1")), newPod("deleting", pending()))
	e.c.planned.record("default-1", []string{"default/cleared", "default/kept"}, testNow)
	e.c.planned.record("aks-default-1", []string{"default/onNode"}, testNow)
	e.c.planned.record("default-2", []string{"default/inFlight"}, testNow)
	e.c.planned.record("default-3", []string{"default/unregistered"}, testNow)
	e.c.planned.record("aks-default-4", []string{"default/deleting"}, testNow)

	// The informer keeps showing both un-nominated (kube-scheduler cleared them, or the patch is
	// not seen yet).
	for pass, tt := range []struct {
		after time.Duration
		want  []string
	}{
		{0, []string{"patch pods/status cleared", "patch pods/status onNode"}},
		{renominateAfter - time.Millisecond, nil}, // too soon: the patch may just not be seen yet
		{renominateAfter, []string{"patch pods/status cleared", "patch pods/status onNode"}},
		{10 * renominateAfter, nil}, // maxNominations reached
	} {
		now = now.Add(tt.after)
		e.kube.ClearActions()
		e.c.renominate(context.Background())
		assert.ElementsMatch(t, tt.want, podNodeWrites(e), "pass %d", pass)
	}
	assert.Equal(t, "aks-default-1", storedNomination(t, e, "cleared"))
	assert.Empty(t, storedNomination(t, e, "inFlight"))
	assert.Empty(t, storedNomination(t, e, "unregistered"))
	assert.Empty(t, storedNomination(t, e, "deleting"))

	// Once the pod is planned afresh (its record gone), its count is forgotten.
	e.c.planned.mu.Lock()
	delete(e.c.planned.where, "default/cleared")
	e.c.planned.mu.Unlock()
	e.c.renominate(context.Background())
	assert.True(t, e.c.nominations.take("default/cleared", "aks-default-1", 1, now))
}

func TestNominatePolicySelects(t *testing.T) {
	t.Parallel()
	node := newNode("n", "", allocatable("4", "16Gi"))
	bare := newNode("n", "")
	anti := hostnameAntiAffinity
	spread := func(when corev1.UnsatisfiableConstraintAction) podOpt {
		return func(p *corev1.Pod) {
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1,
				TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: when}}
		}
	}
	tests := []struct {
		name   string
		policy NominatePolicy
		pod    *corev1.Pod
		node   *corev1.Node
		want   bool
	}{
		{"off nominates nothing", NominateOff, newPod("p", requesting("2", "8Gi")), node, false},
		{"all nominates a small pod", NominateAll, newPod("p", requesting("100m", "100Mi")), node, true},
		{"constrained: a small pod is not", NominateConstrained, newPod("p", requesting("250m", "1Gi")), node, false},
		{"constrained: a quarter of the cpu", NominateConstrained, newPod("p", requesting("1", "1Gi")), node, true},
		{"constrained: a quarter of the memory", NominateConstrained, newPod("p", requesting("500m", "4Gi")), node, true},
		{"constrained: just under a quarter", NominateConstrained, newPod("p", requesting("999m", "4095Mi")), node, false},
		{"constrained: hostname anti-affinity", NominateConstrained, newPod("p", requesting("100m", "100Mi"), anti), node, true},
		{"constrained: DoNotSchedule spread", NominateConstrained, newPod("p", requesting("100m", "100Mi"), spread(corev1.DoNotSchedule)), node, true},
		{"constrained: ScheduleAnyway spread is not", NominateConstrained, newPod("p", requesting("100m", "100Mi"), spread(corev1.ScheduleAnyway)), node, false},
		{"constrained: no allocatable reported, size unknown", NominateConstrained, newPod("p", requesting("2", "8Gi")), bare, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.policy.selects(tt.pod, tt.node))
		})
	}
}

func TestParseNominatePolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    NominatePolicy
		wantErr string
	}{
		{"", NominatePredicted, ""},
		{"off", NominateOff, ""},
		{"all", NominateAll, ""},
		{"constrained", NominateConstrained, ""},
		{"replanned", NominateReplanned, ""},
		{"predicted", NominatePredicted, ""},
		{"All", "", `nominate pods policy "All": want one of off, all, constrained, replanned, predicted`},
	}
	for _, tt := range tests {
		got, err := ParseNominatePolicy(tt.in)
		if tt.wantErr != "" {
			assert.EqualError(t, err, tt.wantErr)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want, got)
	}
}

// nominationBench is 10,000 pending pods planned 10 each on 1,000 NodeClaims, half of them
// registered (their pods already nominated there, as after their registration, unless
// notNominated), for the cost of finding what to nominate (no patch is written).
func nominationBench(b *testing.B, notNominated ...bool) (*testEnv, *api.NodeClaim, *corev1.Node) {
	e := newTestEnv(b)
	e.c.cfg.NominatePods = NominateAll
	var lastClaim *api.NodeClaim
	var lastNode *corev1.Node
	for i := range 1000 {
		name := fmt.Sprintf("default-%d", i)
		nodeName := "aks-" + name
		opts := []claimOpt{launched()}
		if i%2 == 1 {
			opts = append(opts, registered())
			node := newNode(nodeName, pid(name), isReady(), allocatable("16", "64Gi"), registeredFor(name))
			require.NoError(b, e.c.inf.nodes.GetIndexer().Add(node))
			lastNode = node
		}
		nc := testClaim(name, "default", pid(name), opts...)
		nc.Status.NodeName = nodeName
		require.NoError(b, e.c.inf.claims.GetIndexer().Add(cachedForm(b, nc)))
		var planned []string
		for j := range 10 {
			opts := []podOpt{pending()}
			if i%2 == 1 && len(notNominated) == 0 {
				opts = append(opts, nominatedTo(nodeName))
			}
			pod := newPod(fmt.Sprintf("web-%d-%d", i, j), opts...)
			require.NoError(b, e.c.inf.pods.GetIndexer().Add(pod))
			planned = append(planned, "default/"+pod.Name)
		}
		e.c.planned.record(name, planned, testNow)
		if i%2 == 1 {
			lastClaim = nc
		}
	}
	return e, lastClaim, lastNode
}

// BenchmarkRenominate is one provisioning pass's look for held pods to nominate.
func BenchmarkRenominate(b *testing.B) {
	e, _, _ := nominationBench(b)
	for b.Loop() {
		e.c.renominate(context.Background())
	}
	if n := len(e.kube.Actions()); n != 0 {
		b.Fatalf("%d API requests, want none", n)
	}
}

// BenchmarkRenominateAtBound is a provisioning pass while the bound on unbound nominations is
// spent: 5,000 held pods on 500 registered nodes lack their nomination, and none may be written.
func BenchmarkRenominateAtBound(b *testing.B) {
	e, _, _ := nominationBench(b, true)
	e.c.cfg.NominateMaxUnbound = 1
	require.NoError(b, e.c.inf.pods.GetIndexer().Add(newPod("elsewhere", pending(), nominatedTo("aks-other"))))
	for b.Loop() {
		e.c.renominate(context.Background())
	}
	if n := len(e.kube.Actions()); n != 0 {
		b.Fatalf("%d API requests, want none", n)
	}
}

// BenchmarkNominateOnRegistration is one registration's look for its planned pods.
func BenchmarkNominateOnRegistration(b *testing.B) {
	e, nc, node := nominationBench(b)
	for b.Loop() {
		e.c.nominateOnRegistration(context.Background(), nc, node)
	}
	if n := len(e.kube.Actions()); n != 0 {
		b.Fatalf("%d API requests, want none", n)
	}
}
