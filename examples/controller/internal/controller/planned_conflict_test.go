package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
			in, held, _ := holdFresh(s, e.c.planned, time.Minute)

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
	in, held, _ := holdFresh(s, e.c.planned, time.Minute)
	assert.Equal(t, 1, held)
	assert.Equal(t, []string{"planned"}, podsOnTarget(t, in, "flying"))
}
