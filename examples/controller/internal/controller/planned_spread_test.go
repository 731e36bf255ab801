package controller

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

// spreadEnv is a cluster with an initialized node in each of zones z1, z2, z3 (a, b, c) and a
// claim in flight in z1 (flying).
func spreadEnv(t *testing.T) *testEnv {
	t.Helper()
	e := plannedEnv(t)
	initAt := withCondition(api.ConditionInitialized, metav1.ConditionTrue, "Initialized", testNow.Add(-5*time.Second))
	zoned := func(zone string) nodeOpt {
		return func(n *corev1.Node) { n.Labels[api.LabelZone] = zone }
	}
	typed := withLabel(api.LabelInstanceType, d2)
	for _, n := range []struct{ name, zone string }{{"a", "z1"}, {"b", "z2"}, {"c", "z3"}} {
		e.addClaim(t, testClaim("claim-"+n.name, "default", pid(n.name), typed, withLabel(api.LabelZone, n.zone),
			launched(), registered(), initAt))
		e.addNode(t, newNode(n.name, pid(n.name), isReady(), zoned(n.zone)))
	}
	e.addClaim(t, testClaim("flying-z1", "default", "", typed, withLabel(api.LabelZone, "z1")))
	return e
}

// zoneSpread gives the pod app=web (and a pod-template-hash) and a zone spread over app=web.
func zoneSpread(maxSkew int32, when corev1.UnsatisfiableConstraintAction, matchLabelKeys ...string) podOpt {
	return func(p *corev1.Pod) {
		p.Labels = map[string]string{"app": "web", "pod-template-hash": "v1"}
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: maxSkew,
			TopologyKey: api.LabelZone, WhenUnsatisfiable: when, MatchLabelKeys: matchLabelKeys,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	}
}

// TestPlannedPodsReleaseSpread: a held pod whose zone, counting its siblings bound where
// kube-scheduler put them and held where the plan put them, is more than maxSkew above the
// least zone is released at once (kube-scheduler's PodTopologySpread filter,
// pkg/scheduler/framework/plugins/podtopologyspread/filtering.go, refuses it there for good);
// only as many as the zone is over, only from initialized nodes.
func TestPlannedPodsReleaseSpread(t *testing.T) {
	t.Parallel()
	spread := zoneSpread(1, corev1.DoNotSchedule)
	tests := []struct {
		name     string
		held     map[string]string // held pod -> target
		opts     []podOpt          // the held pods' (default: spread)
		bound    []string          // one sibling bound to each node named
		boundOpt []podOpt          // the bound siblings' extra options
		released []string
	}{
		{name: "level as planned", held: map[string]string{"h1": "a", "h3": "c"}, bound: []string{"a", "b"}},
		{name: "a sibling bound in the wrong zone", held: map[string]string{"h1": "a", "h3": "c"},
			bound: []string{"a", "a", "b"}, released: []string{"h1"}},
		{name: "one too many of two held: the first by name", held: map[string]string{"h1": "a", "h2": "a", "h3": "c"},
			bound: []string{"a", "b"}, released: []string{"h1"}},
		{name: "two too many", held: map[string]string{"h1": "a", "h2": "a"},
			bound: []string{"a", "a", "b", "c"}, released: []string{"h1", "h2"}},
		{name: "a claim in flight is not released", held: map[string]string{"h1": "flying-z1", "h3": "c"},
			bound: []string{"a", "a", "b"}},
		{name: "maxSkew 2 leaves room", held: map[string]string{"h1": "a", "h3": "c"},
			opts: []podOpt{zoneSpread(2, corev1.DoNotSchedule)}, bound: []string{"a", "a", "b"}},
		{name: "ScheduleAnyway is not a filter", held: map[string]string{"h1": "a", "h3": "c"},
			opts: []podOpt{zoneSpread(1, corev1.ScheduleAnyway)}, bound: []string{"a", "a", "b"}},
		{name: "siblings in another namespace do not count", held: map[string]string{"h1": "a", "h3": "c"},
			bound: []string{"a", "a", "b"}, boundOpt: []podOpt{inNamespace("other")}},
		{name: "matchLabelKeys: another ReplicaSet's pods do not count", held: map[string]string{"h1": "a", "h3": "c"},
			opts: []podOpt{zoneSpread(1, corev1.DoNotSchedule, "pod-template-hash")}, bound: []string{"a", "a", "b"},
			boundOpt: []podOpt{func(p *corev1.Pod) { p.Labels["pod-template-hash"] = "v0" }}},
		{name: "terminating siblings do not count", held: map[string]string{"h1": "a", "h3": "c"},
			bound: []string{"a", "a", "b"}, boundOpt: []podOpt{deletedAt(testNow)}},
		{name: "an empty selector counts nothing", held: map[string]string{"h1": "a", "h3": "c"},
			opts: []podOpt{zoneSpread(1, corev1.DoNotSchedule), func(p *corev1.Pod) {
				p.Spec.TopologySpreadConstraints[0].LabelSelector = &metav1.LabelSelector{}
			}}, bound: []string{"a", "a", "b"}},
		{name: "finished siblings do not count", held: map[string]string{"h1": "a", "h3": "c"},
			bound: []string{"a", "a", "b"}, boundOpt: []podOpt{withPhase(corev1.PodSucceeded)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := spreadEnv(t)
			opts := tc.opts
			if opts == nil {
				opts = []podOpt{spread}
			}
			for name, target := range tc.held {
				e.addPod(t, newPod(name, append([]podOpt{unschedulable()}, opts...)...))
				e.c.planned.record(target, []string{"default/" + name}, testNow)
			}
			for i, node := range tc.bound {
				e.addPod(t, newPod("bound-"+node+string(rune('0'+i)), append([]podOpt{spread, boundTo(node)}, tc.boundOpt...)...))
			}
			s := e.c.takeSnapshot()
			_, held, _ := holdFresh(s, e.c.planned, time.Minute)
			var got []string
			for _, key := range e.c.planned.takeReleased()[releaseSpread] {
				got = append(got, key[len("default/"):len("default/")+2])
			}
			slices.Sort(got)
			assert.Equal(t, tc.released, got)
			require.Equal(t, len(tc.held)-len(tc.released), held)
		})
	}
}
