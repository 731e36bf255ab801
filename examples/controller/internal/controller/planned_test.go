package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/snapshot"
)

// plannedEnv is a cluster with one target of each kind a plan can put a pod on, in each state.
func plannedEnv(t *testing.T) *testEnv {
	t.Helper()
	e := newTestEnv(t)
	cat := &instancetype.Catalogue{InstanceTypes: []*instancetype.InstanceType{{Name: d2}}}
	e.c.catalogues = newCatalogueCache(func(*api.AKSNodeClass) (*instancetype.Catalogue, error) { return cat, nil },
		e.c.cfg.Offerings)
	e.addClass(t, "default")
	e.addPool(t, poolOf("default", "default"))
	typed := withLabel(api.LabelInstanceType, d2)
	initAt := func(ago time.Duration) claimOpt {
		return withCondition(api.ConditionInitialized, metav1.ConditionTrue, "Initialized", testNow.Add(-ago))
	}
	e.addClaim(t,
		testClaim("flying", "default", "", typed),
		testClaim("failed", "default", "", typed, withCondition(api.ConditionLaunched, metav1.ConditionFalse, "LaunchFailed", testNow)),
		testClaim("going", "default", "", typed, claimDeleting()),
		testClaim("booting", "default", pid("booting"), typed, launched(), registered()),
		testClaim("fresh", "default", pid("fresh"), typed, launched(), registered(), initAt(5*time.Second)),
		testClaim("old", "default", pid("old"), typed, launched(), registered(), initAt(time.Minute)),
	)
	e.addNode(t, newNode("booting", pid("booting"), isReady()), newNode("fresh", pid("fresh"), isReady()),
		newNode("old", pid("old"), isReady()), newNode("deleted", pid("deleted"), isReady(), nodeDeleting()))
	return e
}

// TestPlannedPodsHold: a pending pod a plan put on a claim or node still coming is counted on it
// instead of planned again; once the target is initialized it is held for the grace period after
// the later of the initialization and the plan; a pod whose target failed, is being deleted or is
// unknown is planned again, and its record forgotten.
func TestPlannedPodsHold(t *testing.T) {
	t.Parallel()
	const grace = 20 * time.Second
	tests := []struct {
		name   string
		target string
		ago    time.Duration // how long ago the plan was made
		want   string        // the in-flight claim or node that holds the pod; "" for planned again
		why    string        // why a pod planned again was released
	}{
		{name: "claim in flight", target: "flying", ago: time.Hour, want: "flying"},
		{name: "claim registered, node not initialized", target: "booting", ago: time.Hour, want: "booting"},
		{name: "node named directly", target: "booting", ago: time.Hour, want: "booting"},
		{name: "initialized within the grace", target: "fresh", ago: time.Hour, want: "fresh"},
		{name: "initialized past the grace", target: "old", ago: time.Hour, why: releaseGraceOver},
		{name: "planned on an initialized node within the grace", target: "old", ago: 5 * time.Second, want: "old"},
		{name: "launch failed", target: "failed", ago: time.Second, why: releaseTargetGone},
		{name: "claim being deleted", target: "going", ago: time.Second, why: releaseTargetGone},
		{name: "node being deleted", target: "deleted", ago: time.Second, why: releaseTargetGone},
		{name: "unknown target", target: "nowhere", ago: time.Second, why: releaseTargetGone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := plannedEnv(t)
			e.addPod(t, newPod("web", unschedulable()), newPod("other", unschedulable()))
			e.c.planned.record(tc.target, []string{"default/web"}, testNow.Add(-tc.ago))
			s := e.c.takeSnapshot()
			in, held, holding := holdFresh(s, e.c.planned, grace)

			pending := mapSlice(in.Pods, func(p *corev1.Pod) string { return p.Name })
			if tc.want == "" {
				assert.Zero(t, held)
				assert.Empty(t, holding)
				assert.ElementsMatch(t, []string{"web", "other"}, pending, "planned again")
				assert.Empty(t, e.c.planned.where, "a pod planned again is forgotten")
				assert.Equal(t, map[string][]string{tc.why: {"default/web@" + tc.target}}, e.c.planned.takeReleased())
				return
			}
			assert.Equal(t, 1, held)
			assert.Equal(t, []string{tc.target}, holding, "the target to keep nominated")
			assert.Equal(t, []string{"other"}, pending)
			assert.Equal(t, []string{"web"}, podsOnTarget(t, in, tc.want), "counted on %s", tc.want)
			assert.Contains(t, e.c.planned.where, "default/web", "still remembered")
			n, ok := s.Node(tc.want)
			if ok {
				assert.Empty(t, n.Pods, "the snapshot's own pod list is left alone")
			}
		})
	}
}

// TestPlannedPodsHoldUnseenClaim: the pods of a claim the controller has just created stay held
// while the caches do not show it (the informer's delay under a burst), up to the grace after the
// plan; once a snapshot has shown the claim, its disappearance releases them at once.
func TestPlannedPodsHoldUnseenClaim(t *testing.T) {
	t.Parallel()
	const grace = 20 * time.Second
	tests := []struct {
		name     string
		target   string
		ago      time.Duration
		seenOnce bool // a hold saw the target before this one
		held     bool
	}{
		{name: "created, not cached yet", target: "nowhere", ago: 5 * time.Second, held: true},
		{name: "created past the grace, never cached", target: "nowhere", ago: grace + time.Second},
		{name: "cached, then gone", target: "flying", ago: 5 * time.Second, seenOnce: true},
		{name: "created and cached", target: "flying", ago: 5 * time.Second, held: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := plannedEnv(t)
			e.addPod(t, newPod("web", unschedulable()), newPod("other", unschedulable()))
			e.c.planned.recordCreated(tc.target, []string{"default/web"}, testNow.Add(-tc.ago))
			s := e.c.takeSnapshot()
			if tc.seenOnce {
				holdFresh(s, e.c.planned, grace)
				cached, ok, _ := e.c.inf.claims.GetIndexer().GetByKey("flying")
				require.True(t, ok)
				require.NoError(t, e.c.inf.claims.GetIndexer().Delete(cached))
				s = e.c.takeSnapshot()
			}
			in, held, _ := holdFresh(s, e.c.planned, grace)
			pending := mapSlice(in.Pods, func(p *corev1.Pod) string { return p.Name })
			if tc.held {
				assert.Equal(t, 1, held)
				assert.Equal(t, []string{"other"}, pending, "not planned again")
				return
			}
			assert.Zero(t, held)
			assert.ElementsMatch(t, []string{"web", "other"}, pending, "planned again")
			assert.Equal(t, map[string][]string{releaseTargetGone: {"default/web@" + tc.target}}, e.c.planned.takeReleased())
		})
	}
}

// podsOnTarget lists the pods the provisioner input puts on the named in-flight claim or node.
func podsOnTarget(t *testing.T, in provisioner.Input, name string) []string {
	t.Helper()
	for _, f := range in.InFlight {
		if f.Name == name {
			return mapSlice(f.Pods, func(p *corev1.Pod) string { return p.Name })
		}
	}
	for _, n := range in.Nodes {
		if n.Node.Name == name {
			return mapSlice(n.Pods, func(p *corev1.Pod) string { return p.Name })
		}
	}
	require.Failf(t, "no such target", "%s is neither in flight nor an existing node", name)
	return nil
}

// TestPlannedPodsForget: a pod no longer pending (bound, deleted) is forgotten; a negative grace
// holds nothing, as Karpenter plans every pending pod afresh.
func TestPlannedPodsForget(t *testing.T) {
	t.Parallel()
	e := plannedEnv(t)
	e.addPod(t, newPod("bound", boundTo("fresh")), newPod("web", unschedulable()))
	e.c.planned.record("flying", []string{"default/bound", "default/web", "default/deleted"}, testNow)
	s := e.c.takeSnapshot()
	in, held, _ := holdFresh(s, e.c.planned, time.Minute)
	assert.Equal(t, 1, held)
	assert.Equal(t, map[string]plannedPod{"default/web": {target: "flying", at: testNow}}, e.c.planned.where)
	assert.Empty(t, e.c.planned.takeReleased(), "a pod no longer pending is forgotten, not released")

	in, held, _ = holdFresh(s, e.c.planned, -1)
	assert.Zero(t, held)
	assert.Len(t, in.Pods, 1, "planned afresh")
	assert.Empty(t, e.c.planned.where)
}

// TestPlannedPodsRememberReplanned: a pod a hold released is marked replanned while it stays
// pending, whatever the reason; once bound or gone the mark is dropped at the next hold.
func TestPlannedPodsRememberReplanned(t *testing.T) {
	t.Parallel()
	e := plannedEnv(t)
	e.addPod(t, newPod("web", unschedulable()), newPod("held", unschedulable()))
	e.c.planned.record("old", []string{"default/web"}, testNow.Add(-time.Hour))
	e.c.planned.record("flying", []string{"default/held"}, testNow)
	s := e.c.takeSnapshot()
	holdFresh(s, e.c.planned, 20*time.Second)
	assert.True(t, e.c.planned.wasReplanned("default/web"), "released: graceOver")
	assert.False(t, e.c.planned.wasReplanned("default/held"), "still held")

	e.c.planned.record("flying", []string{"default/web"}, testNow)
	holdFresh(s, e.c.planned, 20*time.Second)
	assert.True(t, e.c.planned.wasReplanned("default/web"), "held on its second target, still marked")

	e.addPod(t, newPod("web", boundTo("fresh")))
	s = e.c.takeSnapshot()
	holdFresh(s, e.c.planned, 20*time.Second)
	assert.False(t, e.c.planned.wasReplanned("default/web"), "bound: forgotten")
	assert.Empty(t, e.c.planned.replanned)
}

// TestPlannedPodsRecordPlan: a plan's placements on existing nodes and in-flight claims are
// remembered under those names.
func TestPlannedPodsRecordPlan(t *testing.T) {
	t.Parallel()
	p := newPlannedPods()
	p.recordPlan(&provisioner.Plan{
		ExistingNodes:  []provisioner.NodePlacement{{Name: "node-a", Pods: []string{"ns/a1", "ns/a2"}}},
		InFlightClaims: []provisioner.NodePlacement{{Name: "claim-b", Pods: []string{"ns/b1"}}},
	}, testNow)
	assert.Equal(t, map[string]plannedPod{
		"ns/a1": {target: "node-a", at: testNow}, "ns/a2": {target: "node-a", at: testNow},
		"ns/b1": {target: "claim-b", at: testNow},
	}, p.where)
}

// TestProvisionKeepsHoldingTargetsNominated: a pass that holds every pending pod plans nothing
// but keeps the targets nominated, so consolidation does not remove a node whose planned pods
// kube-scheduler has not bound yet.
func TestProvisionKeepsHoldingTargetsNominated(t *testing.T) {
	t.Parallel()
	e := plannedEnv(t)
	e.addPod(t, newPod("web", unschedulable()))
	e.c.planned.record("fresh", []string{"default/web"}, testNow.Add(-time.Minute))
	require.False(t, e.c.state.isNominated("fresh", testNow))

	require.NoError(t, e.c.provision(context.Background()))
	assert.True(t, e.c.state.isNominated("fresh", testNow), "held pods keep their target nominated")
	list, err := e.dyn.Resource(NodeClaimsGVR).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, list.Items, 6, "no NodeClaim created for a held pod")
}

// TestProvisionCountsReleases: the pods a pass's hold lets go are counted by reason
// (napkit_planned_pods_released_total), those it keeps are not.
func TestProvisionCountsReleases(t *testing.T) {
	t.Parallel()
	e := plannedEnv(t)
	e.addPod(t, newPod("lost", unschedulable()), newPod("stale", unschedulable()), newPod("kept", unschedulable()))
	e.c.planned.record("nowhere", []string{"default/lost"}, testNow.Add(-time.Second))
	e.c.planned.record("old", []string{"default/stale"}, testNow.Add(-time.Hour))
	e.c.planned.record("fresh", []string{"default/kept"}, testNow.Add(-time.Minute))

	require.NoError(t, e.c.provision(context.Background()))
	released := e.c.metrics.plannedReleased
	assert.InDelta(t, 1, testutil.ToFloat64(released.WithLabelValues(releaseTargetGone)), 0)
	assert.InDelta(t, 1, testutil.ToFloat64(released.WithLabelValues(releaseGraceOver)), 0)
	assert.Equal(t, 2, testutil.CollectAndCount(released), "no other reason counted")
}

// TestPlannedPodsReleaseWhatNoLongerFits: kube-scheduler put another pod on a node a plan had
// counted on; the planned pods that no longer fit its room are planned again at once, the
// others stay held.
func TestPlannedPodsReleaseWhatNoLongerFits(t *testing.T) {
	t.Parallel()
	e := plannedEnv(t)
	full := newNode("full", pid("full"), isReady())
	full.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"),
		corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")}
	e.addNode(t, full)
	e.addClaim(t, testClaim("full", "default", pid("full"), withLabel(api.LabelInstanceType, d2), launched(), registered()))
	e.addPod(t,
		newPod("stranger", boundTo("full"), cpuRequest("1500m")),
		newPod("first", unschedulable(), cpuRequest("400m")),
		newPod("second", unschedulable(), cpuRequest("400m")),
	)
	e.c.planned.record("full", []string{"default/first", "default/second"}, testNow)
	s := e.c.takeSnapshot()
	in, held, holding := holdFresh(s, e.c.planned, time.Minute)

	assert.Equal(t, 1, held, "500m left: one of the two 400m pods")
	assert.Equal(t, []string{"full"}, holding)
	require.Len(t, in.Pods, 1)
	onFull := podsOnTarget(t, in, "full")
	assert.Len(t, onFull, 2)
	assert.Contains(t, onFull, "stranger")
	assert.NotContains(t, onFull, in.Pods[0].Name, "the pod planned again is not also held")
	assert.Equal(t, map[string][]string{releaseNoRoom: {"default/" + in.Pods[0].Name + "@full"}}, e.c.planned.takeReleased())
	assert.Nil(t, e.c.planned.takeReleased(), "taken once")
}

func cpuRequest(q string) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}}})
	}
}

// holdBench is a burst's state as a hold sees it: 1,000 claims, every second one registered with
// a 16-core node running the pods bound(node index) lists, each claim with 10 pending pods
// planned on it (planned(j) the options of the j-th).
type holdBench struct {
	bound   func(i int, node string) []*corev1.Pod
	planned func(j int) []podOpt
	// initialized: the registered nodes are initialized (within the grace), each in one of
	// three zones, so their held pods' spreads are counted (planned_spread.go).
	initialized bool
}

func (h holdBench) build(b *testing.B) (*snapshot.Snapshot, *plannedPods) {
	pool := provisioner.NodePoolInput{NodePool: poolOf("default", "default"),
		InstanceTypes: []*instancetype.InstanceType{{Name: d2}}}
	objs := snapshot.Objects{NodePools: []provisioner.NodePoolInput{pool}}
	p := newPlannedPods()
	for i := range 1000 {
		name := fmt.Sprintf("default-%d", i)
		opts := []claimOpt{withLabel(api.LabelInstanceType, d2), launched()}
		if i%2 == 1 {
			opts = append(opts, registered())
			node := newNode(name, pid(name), isReady())
			if h.initialized {
				opts = append(opts, withCondition(api.ConditionInitialized, metav1.ConditionTrue, "Initialized", testNow))
				node.Labels[api.LabelZone] = fmt.Sprintf("z%d", (i/2)%3)
			}
			node.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"),
				corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")}
			objs.Nodes = append(objs.Nodes, node)
			objs.Pods = append(objs.Pods, h.bound(i, name)...)
		}
		objs.NodeClaims = append(objs.NodeClaims, testClaim(name, "default", pid(name), opts...))
		var planned []string
		for j := range 10 {
			pod := newPod(fmt.Sprintf("web-%d-%d", i, j), append([]podOpt{unschedulable(), cpuRequest("500m")}, h.planned(j)...)...)
			objs.Pods = append(objs.Pods, pod)
			planned = append(planned, "default/"+pod.Name)
		}
		p.record(name, planned, testNow)
	}
	s, err := snapshot.Take(objs, snapshot.Options{Now: testNow, PendingRule: snapshot.PendingUngated})
	require.NoError(b, err)
	return s, p
}

// run holds every pending pod each iteration; the provisioner input is rebuilt each time, as
// each pass does.
func (h holdBench) run(b *testing.B) {
	s, p := h.build(b)
	for b.Loop() {
		in := s.ProvisionerInput(provisioner.Options{})
		if held, _ := p.hold(s, &in, time.Minute); held != 10000 {
			b.Fatalf("held %d of 10,000", held)
		}
	}
}

// BenchmarkPlannedPodsHold holds 10,000 pending pods planned on 500 in-flight claims and 500
// registered nodes (each with its room checked), as a batch of a 10,000-pod burst does.
func BenchmarkPlannedPodsHold(b *testing.B) {
	holdBench{
		bound:   func(int, string) []*corev1.Pod { return nil },
		planned: func(int) []podOpt { return nil },
	}.run(b)
}

// BenchmarkPlannedPodsHoldAmongBound is BenchmarkPlannedPodsHold with the registered nodes
// already running pods, as in a burst once kube-scheduler has bound some: four on each, two of
// them one-per-host (another Deployment's), and one held pod in ten one-per-host, so every held
// pod's target is searched for a pod that excludes it (none does: all 10,000 stay held).
func BenchmarkPlannedPodsHoldAmongBound(b *testing.B) {
	holdBench{
		bound: func(i int, node string) []*corev1.Pod {
			var out []*corev1.Pod
			for j := range 4 {
				opts := []podOpt{boundTo(node), cpuRequest("500m"), labelled("app", "api")}
				if j < 2 {
					opts = []podOpt{boundTo(node), cpuRequest("500m"), antiAffine("cache", "cache", corev1.LabelHostname, nil, nil)}
				}
				out = append(out, newPod(fmt.Sprintf("bound-%d-%d", i, j), opts...))
			}
			return out
		},
		planned: func(j int) []podOpt {
			if j == 0 {
				return []podOpt{antiAffine("web", "web", corev1.LabelHostname, nil, nil)}
			}
			return nil
		},
	}.run(b)
}

// holdFresh builds the provisioner input from s, as a provisioning pass does, and holds the
// planned pods on it: the input the provisioner would get, how many pods were held, and where.
func holdFresh(s *clusterSnapshot, p *plannedPods, grace time.Duration) (provisioner.Input, int, []string) {
	in := s.ProvisionerInput(provisioner.Options{})
	held, holding := p.hold(s.Snapshot, &in, grace)
	return in, held, holding
}

// BenchmarkPlannedPodsHoldSpread is BenchmarkPlannedPodsHoldAmongBound's burst later on: the
// registered nodes initialized in three zones, one bound pod in four and one held pod in ten
// replicas of one zone-spread Deployment (maxSkew 2: the zones stay level, all 10,000 stay
// held), so the hold counts the spread's pods per zone before holding (spreadExcess).
func BenchmarkPlannedPodsHoldSpread(b *testing.B) {
	spread := zoneSpread(2, corev1.DoNotSchedule)
	holdBench{
		initialized: true,
		bound: func(i int, node string) []*corev1.Pod {
			var out []*corev1.Pod
			for j := range 4 {
				opts := []podOpt{boundTo(node), cpuRequest("500m"), labelled("app", "api")}
				if j == 0 {
					opts = []podOpt{boundTo(node), cpuRequest("500m"), spread}
				}
				out = append(out, newPod(fmt.Sprintf("bound-%d-%d", i, j), opts...))
			}
			return out
		},
		planned: func(j int) []podOpt {
			if j == 0 {
				return []podOpt{spread}
			}
			return nil
		},
	}.run(b)
}
