package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/consolidation"
)

// TestConsolidatedMemo: a pass that found nothing to consolidate lets the next ones skip the
// method until a change, the recheck period or the pass's wake time; a pass held back by a budget,
// or that found a consolidation, marks nothing.
func TestConsolidatedMemo(t *testing.T) {
	t.Parallel()
	nothing := &consolidation.Plan{}
	bound := &consolidation.Plan{Stats: consolidation.Stats{UnderutilizedBudgetBound: true}}
	found := &consolidation.Plan{Commands: []consolidation.Command{{Reason: consolidation.ReasonUnderutilized}}}
	drift := &consolidation.Plan{Commands: []consolidation.Command{{Reason: consolidation.ReasonDrifted}}}
	deferred := &consolidation.Plan{Deferred: []consolidation.Deferred{{}}}
	now := testNow
	tests := []struct {
		name    string
		plan    *consolidation.Plan
		wake    time.Time
		recheck time.Duration
		change  bool
		at      time.Time
		want    bool
	}{
		{name: "nothing changed", plan: nothing, recheck: time.Minute, at: now.Add(30 * time.Second), want: true},
		{name: "a drift command is not a consolidation", plan: drift, recheck: time.Minute, at: now.Add(time.Second), want: true},
		{name: "a change since", plan: nothing, recheck: time.Minute, change: true, at: now.Add(time.Second)},
		{name: "the recheck period passed", plan: nothing, recheck: time.Minute, at: now.Add(time.Minute)},
		{name: "before the wake time", plan: nothing, wake: now.Add(10 * time.Second), recheck: time.Minute, at: now.Add(9 * time.Second), want: true},
		{name: "a node may be a candidate now", plan: nothing, wake: now.Add(10 * time.Second), recheck: time.Minute, at: now.Add(10 * time.Second)},
		{name: "a budget held a candidate back", plan: bound, recheck: time.Minute, at: now.Add(time.Second)},
		{name: "a consolidation was found", plan: found, recheck: time.Minute, at: now.Add(time.Second)},
		{name: "a consolidation waits for a PDB", plan: deferred, recheck: time.Minute, at: now.Add(time.Second)},
		{name: "memo off", plan: nothing, recheck: -1, at: now.Add(time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var m consolidatedMemo
			m.changed()
			changes := m.seen()
			m.record(changes, tt.plan, now, tt.wake, tt.recheck)
			if tt.change {
				m.changed()
			}
			assert.Equal(t, tt.want, m.holds(m.seen(), tt.at))
		})
	}
}

// TestConsolidatedMemoChangeDuringDecision: a change between the decision's read of the count
// and its record leaves no mark.
func TestConsolidatedMemoChangeDuringDecision(t *testing.T) {
	t.Parallel()
	var m consolidatedMemo
	changes := m.seen()
	m.changed()
	m.record(changes, &consolidation.Plan{}, testNow, time.Time{}, time.Minute)
	assert.False(t, m.holds(m.seen(), testNow.Add(time.Second)))
	assert.False(t, m.holds(changes, testNow.Add(time.Second)))
}

// TestNodeChangeMatters: a Node's status heartbeat is no change for consolidation; its labels,
// taints, allocatable, condition statuses or deletion are.
func TestNodeChangeMatters(t *testing.T) {
	t.Parallel()
	base := newNode("n", pid("n"), isReady())
	base.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
	tests := []struct {
		name   string
		change func(*corev1.Node)
		want   bool
	}{
		{"heartbeat", func(n *corev1.Node) {
			n.ResourceVersion = "2"
			for i := range n.Status.Conditions {
				n.Status.Conditions[i].LastHeartbeatTime = metav1.NewTime(testNow.Add(time.Minute))
			}
		}, false},
		{"label", func(n *corev1.Node) { n.Labels["team"] = "a" }, true},
		{"taint", func(n *corev1.Node) {
			n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "k", Effect: corev1.TaintEffectNoSchedule})
		}, true},
		{"cordon", func(n *corev1.Node) { n.Spec.Unschedulable = true }, true},
		{"allocatable", func(n *corev1.Node) { n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("3") }, true},
		{"not ready", func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionFalse }, true},
		{"deleted", func(n *corev1.Node) { n.DeletionTimestamp = &metav1.Time{Time: testNow} }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			changed := base.DeepCopy()
			tt.change(changed)
			assert.Equal(t, tt.want, nodeChangeMatters(base, changed))
		})
	}
	assert.True(t, nodeChangeMatters(nil, base), "an added node")
}

// TestDecideSkipsWhileConsolidated: on one used node, with replaces asked to save 99 %, the first
// pass simulates and finds no consolidation; the next skips the method (no simulation) until a
// change is marked.
func TestDecideSkipsWhileConsolidated(t *testing.T) {
	t.Parallel()
	e := chainEnv(t, 1)
	e.c.cfg.ConsolidatedRecheck = time.Minute
	e.c.cfg.Consolidation.MinReplaceSavings = 0.99
	e.addPod(t, newPod("web", boundTo("n00"), requesting("1", "1Gi")))
	simulations := func() int {
		plan, _, _, err := e.c.decide(t.Context(), nil)
		require.NoError(t, err)
		require.Empty(t, plan.Commands)
		return plan.Stats.Simulations
	}
	require.Positive(t, simulations(), "the first pass weighs the node")
	assert.Zero(t, simulations(), "nothing changed")
	e.c.consolidated.changed() // what the informers' handlers do on a change
	assert.Positive(t, simulations(), "a change reopens the method")
}
