package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

// zoneSpread labels the pod app=app and gives it a zone spread (maxSkew 1) over that label.
func zoneSpread(app string, when corev1.UnsatisfiableConstraintAction) podOpt {
	return func(p *corev1.Pod) {
		labelled("app", app)(p)
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: api.LabelZone, WhenUnsatisfiable: when,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
		})
	}
}

// TestPlannedPodsSpreadWaitsForSiblings: a pod with a DoNotSchedule spread, held on a node
// initialized long ago (past the grace alone), stays held while a sibling planned in the same
// batch or earlier is held on a claim or node still coming, and for the grace after the last such
// sibling's node initialized; siblings planned later, of another workload or spread only softly,
// and targets gone do not hold it. kube-scheduler counts a spread's domains from bound pods only
// (k8s.io/kubernetes v1.37 pkg/scheduler/framework/plugins/podtopologyspread/filtering.go), so it
// refuses the pod until those siblings bind.
func TestPlannedPodsSpreadWaitsForSiblings(t *testing.T) {
	t.Parallel()
	const grace = 20 * time.Second
	hard := zoneSpread("web", corev1.DoNotSchedule)
	tests := []struct {
		name       string
		web        podOpt        // the held pod's spread
		sibling    podOpt        // the sibling's
		target     string        // where the sibling is held
		siblingAgo time.Duration // how long ago the sibling was planned (the pod: an hour)
		held       bool          // the pod is still held on "old"
	}{
		{name: "sibling's claim in flight", web: hard, sibling: hard, target: "flying", siblingAgo: time.Hour, held: true},
		{name: "sibling's node booting", web: hard, sibling: hard, target: "booting", siblingAgo: time.Hour, held: true},
		{name: "sibling's node initialized within the grace", web: hard, sibling: hard, target: "fresh",
			siblingAgo: time.Hour, held: true},
		{name: "sibling planned by a later batch", web: hard, sibling: hard, target: "flying", siblingAgo: time.Minute},
		{name: "sibling's node initialized past the grace", web: hard, sibling: hard, target: "old", siblingAgo: time.Hour},
		{name: "sibling's launch failed", web: hard, sibling: hard, target: "failed", siblingAgo: time.Hour},
		{name: "another workload's spread", web: hard, sibling: zoneSpread("api", corev1.DoNotSchedule), target: "flying",
			siblingAgo: time.Hour},
		{name: "a soft spread", web: zoneSpread("web", corev1.ScheduleAnyway),
			sibling: zoneSpread("web", corev1.ScheduleAnyway), target: "flying", siblingAgo: time.Hour},
		{name: "no spread of its own", web: labelled("app", "web"), sibling: hard, target: "flying", siblingAgo: time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := plannedEnv(t)
			e.addPod(t, newPod("web", unschedulable(), tc.web), newPod("web-2", unschedulable(), tc.sibling))
			e.c.planned.record("old", []string{"default/web"}, testNow.Add(-time.Hour))
			e.c.planned.record(tc.target, []string{"default/web-2"}, testNow.Add(-tc.siblingAgo))
			s := e.c.takeSnapshot()
			in, _, _ := holdFresh(s, e.c.planned, grace)

			released := e.c.planned.takeReleased()[releaseGraceOver]
			if tc.held {
				assert.Equal(t, []string{"web"}, podsOnTarget(t, in, "old"), "still counted on its node")
				assert.NotContains(t, released, "default/web@old")
				return
			}
			assert.Contains(t, released, "default/web@old", "released as before")
			assert.Empty(t, podsOnTarget(t, in, "old"))
		})
	}
}

// BenchmarkPlannedPodsHoldSpread is BenchmarkPlannedPodsHold with one held pod in ten under a
// DoNotSchedule zone spread, as the scale suite's workloads (shape-03, -13, ...), so the hold
// collects their spread groups and checks each such pod's siblings.
func BenchmarkPlannedPodsHoldSpread(b *testing.B) {
	holdBench{
		bound: func(int, string) []*corev1.Pod { return nil },
		planned: func(j int) []podOpt {
			if j%10 == 3 {
				return []podOpt{zoneSpread("web", corev1.DoNotSchedule)}
			}
			return nil
		},
	}.run(b)
}
