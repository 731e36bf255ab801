package controller

import (
	"fmt"
	"testing"
	"time"

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

// antiAffine gives the pod the label app=name and a required anti-affinity to pods selected by
// app=selects under topology key (in the term's namespaces, and with a namespace selector when
// nsSel is not nil).
func antiAffine(name, selects, key string, namespaces []string, nsSel *metav1.LabelSelector) podOpt {
	return func(p *corev1.Pod) {
		p.Labels = map[string]string{"app": name}
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": selects}},
				TopologyKey:   key, Namespaces: namespaces, NamespaceSelector: nsSel,
			}},
		}}
	}
}

// TestPlannedPodsReleaseAntiAffinity: kube-scheduler bound, to the node a plan had counted on, a
// pod that the planned pod's required anti-affinity (or the bound pod's own) keeps away: the
// planned pod is planned again at once, not after the grace (kube-scheduler's InterPodAffinity
// filter, pkg/scheduler/framework/plugins/interpodaffinity/filtering.go, checks both ways). A
// sibling elsewhere, another namespace, a topology key the node lacks, or a namespace selector
// the snapshot cannot evaluate leave it held.
func TestPlannedPodsReleaseAntiAffinity(t *testing.T) {
	t.Parallel()
	oneHost := func(opts ...podOpt) []podOpt {
		return append([]podOpt{antiAffine("web", "web", corev1.LabelHostname, nil, nil)}, opts...)
	}
	tests := []struct {
		name     string
		planned  []podOpt // the held pod, planned on node "fresh"
		bound    []podOpt // a pod kube-scheduler bound meanwhile
		released bool
	}{
		{name: "a sibling on the node", planned: oneHost(), bound: oneHost(boundTo("fresh")), released: true},
		{name: "the bound pod's anti-affinity", planned: []podOpt{labelled("app", "db")},
			bound: []podOpt{antiAffine("cache", "db", corev1.LabelHostname, nil, nil), boundTo("fresh")}, released: true},
		{name: "a sibling on another node", planned: oneHost(), bound: oneHost(boundTo("old"))},
		{name: "a pod it does not select", planned: oneHost(), bound: []podOpt{labelled("app", "api"), boundTo("fresh")}},
		{name: "a sibling in another namespace", planned: oneHost(), bound: oneHost(boundTo("fresh"), inNamespace("other"))},
		{name: "the term names the other namespace",
			planned: []podOpt{antiAffine("web", "web", corev1.LabelHostname, []string{"other"}, nil)},
			bound:   []podOpt{labelled("app", "web"), boundTo("fresh"), inNamespace("other")}, released: true},
		{name: "an empty namespace selector is every namespace",
			planned: []podOpt{antiAffine("web", "web", corev1.LabelHostname, nil, &metav1.LabelSelector{})},
			bound:   []podOpt{labelled("app", "web"), boundTo("fresh"), inNamespace("other")}, released: true},
		{name: "a namespace selector with terms is not decided",
			planned: []podOpt{antiAffine("web", "web", corev1.LabelHostname, nil,
				&metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}})},
			bound: []podOpt{labelled("app", "web"), boundTo("fresh"), inNamespace("other")}},
		{name: "a topology key the node lacks",
			planned: []podOpt{antiAffine("web", "web", "example.com/rack", nil, nil)},
			bound:   []podOpt{labelled("app", "web"), boundTo("fresh")}},
		{name: "a sibling that finished", planned: oneHost(), bound: oneHost(boundTo("fresh"), withPhase(corev1.PodSucceeded))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := plannedEnv(t)
			e.addPod(t, newPod("planned", append([]podOpt{unschedulable()}, tc.planned...)...),
				newPod("bound", tc.bound...))
			e.c.planned.record("fresh", []string{"default/planned"}, testNow)
			s := e.c.takeSnapshot()
			in := s.ProvisionerInput(provisioner.Options{})
			held, _ := e.c.planned.hold(s.Snapshot, &in, time.Minute)

			if tc.released {
				assert.Zero(t, held)
				assert.Equal(t, map[string][]string{releaseAntiAffinity: {"default/planned@fresh"}}, e.c.planned.takeReleased())
				return
			}
			assert.Equal(t, 1, held)
			assert.Contains(t, podsOnTarget(t, in, "fresh"), "planned")
			assert.Empty(t, e.c.planned.takeReleased())
		})
	}
}

// TestPlannedPodsAntiAffinityInFlight: a claim in flight has no pods bound, so a one-per-host pod
// planned there stays held even with siblings bound elsewhere.
func TestPlannedPodsAntiAffinityInFlight(t *testing.T) {
	t.Parallel()
	e := plannedEnv(t)
	web := antiAffine("web", "web", corev1.LabelHostname, nil, nil)
	e.addPod(t, newPod("planned", unschedulable(), web), newPod("bound", web, boundTo("fresh")))
	e.c.planned.record("flying", []string{"default/planned"}, testNow)
	s := e.c.takeSnapshot()
	in := s.ProvisionerInput(provisioner.Options{})
	held, _ := e.c.planned.hold(s.Snapshot, &in, time.Minute)
	assert.Equal(t, 1, held)
	assert.Equal(t, []string{"planned"}, podsOnTarget(t, in, "flying"))
}

// BenchmarkPlannedPodsHoldAmongBound is BenchmarkPlannedPodsHold with the registered nodes
// already running pods, as in a burst once kube-scheduler has bound some: four pods on each,
// two of them one-per-host (another Deployment's), so every held pod's target is searched for a
// pod that excludes it (none does: all 10,000 stay held).
func BenchmarkPlannedPodsHoldAmongBound(b *testing.B) {
	pool := provisioner.NodePoolInput{NodePool: poolOf("default", "default"),
		InstanceTypes: []*instancetype.InstanceType{{Name: d2}}}
	objs := snapshot.Objects{NodePools: []provisioner.NodePoolInput{pool}}
	p := newPlannedPods()
	web := antiAffine("web", "web", corev1.LabelHostname, nil, nil)
	for i := range 1000 {
		name := fmt.Sprintf("default-%d", i)
		opts := []claimOpt{withLabel(api.LabelInstanceType, d2), launched()}
		if i%2 == 1 {
			opts = append(opts, registered())
			node := newNode(name, pid(name), isReady())
			node.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"),
				corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")}
			objs.Nodes = append(objs.Nodes, node)
			for j := range 4 {
				bound := []podOpt{boundTo(name), cpuRequest("500m"), labelled("app", "api")}
				if j < 2 {
					bound = []podOpt{boundTo(name), cpuRequest("500m"), antiAffine("cache", "cache", corev1.LabelHostname, nil, nil)}
				}
				objs.Pods = append(objs.Pods, newPod(fmt.Sprintf("bound-%d-%d", i, j), bound...))
			}
		}
		objs.NodeClaims = append(objs.NodeClaims, testClaim(name, "default", pid(name), opts...))
		var planned []string
		for j := range 10 {
			opts := []podOpt{unschedulable(), cpuRequest("500m")}
			if j == 0 {
				opts = append(opts, web)
			}
			pod := newPod(fmt.Sprintf("web-%d-%d", i, j), opts...)
			objs.Pods = append(objs.Pods, pod)
			planned = append(planned, "default/"+pod.Name)
		}
		p.record(name, planned, testNow)
	}
	s, err := snapshot.Take(objs, snapshot.Options{Now: testNow, PendingRule: snapshot.PendingUngated})
	require.NoError(b, err)
	for b.Loop() {
		in := s.ProvisionerInput(provisioner.Options{})
		if held, _ := p.hold(s, &in, time.Minute); held != 10000 {
			b.Fatalf("held %d of 10,000", held)
		}
	}
}
