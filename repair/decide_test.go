package repair_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/repair"
)

var now = time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC)

func pool(name, budget string) *api.NodePool {
	p := &api.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if budget != "" {
		p.Spec.Disruption.Budgets = []api.Budget{{Nodes: budget}}
	}
	return p
}

func node(name string, conds ...corev1.NodeCondition) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	n.Status.Conditions = append([]corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}, conds...)
	return n
}

func notReady(status corev1.ConditionStatus, ago time.Duration) corev1.NodeCondition {
	return corev1.NodeCondition{Type: corev1.NodeReady, Status: status, LastTransitionTime: metav1.NewTime(now.Add(-ago))}
}

// withCondition replaces the Ready=True condition node() starts with.
func sick(name string, c corev1.NodeCondition) *corev1.Node {
	n := node(name)
	if c.Type == corev1.NodeReady {
		n.Status.Conditions = []corev1.NodeCondition{c}
	} else {
		n.Status.Conditions = append(n.Status.Conditions, c)
	}
	return n
}

func names(rs []repair.Repair) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Node)
	}
	return out
}

func healthy(p *api.NodePool, count int) []repair.Node {
	var out []repair.Node
	for i := range count {
		out = append(out, repair.Node{Node: node(fmt.Sprintf("ok-%02d", i)), NodePool: p})
	}
	return out
}

// upstream: pkg/cloudprovider/cloudprovider.go RepairPolicies (Ready False/Unknown 10 min,
// NodeHealthy False and PreemptionScheduled True at once); Karpenter core's node health
// controller for the 20 % guard.
func TestDecide(t *testing.T) {
	p := pool("p", "100%")
	tests := []struct {
		name                      string
		nodes                     []repair.Node
		repairs, waiting, blocked []string
	}{
		{name: "healthy cluster", nodes: healthy(p, 5)},
		{name: "Ready=False past the toleration", nodes: append(healthy(p, 9), repair.Node{Node: sick("bad", notReady(corev1.ConditionFalse, 11*time.Minute)), NodePool: p}),
			repairs: []string{"bad"}},
		{name: "Ready=Unknown exactly at the toleration", nodes: append(healthy(p, 9), repair.Node{Node: sick("bad", notReady(corev1.ConditionUnknown, 10*time.Minute)), NodePool: p}),
			repairs: []string{"bad"}},
		{name: "Ready=False within the toleration", nodes: append(healthy(p, 9), repair.Node{Node: sick("bad", notReady(corev1.ConditionFalse, 9*time.Minute)), NodePool: p}),
			waiting: []string{"bad"}},
		{name: "spot preemption scheduled: at once", nodes: append(healthy(p, 9), repair.Node{Node: sick("spot", corev1.NodeCondition{
			Type: repair.ConditionPreemptionScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now)}), NodePool: p}),
			repairs: []string{"spot"}},
		{name: "NodeHealthy=False: at once", nodes: append(healthy(p, 9), repair.Node{Node: sick("nh", corev1.NodeCondition{
			Type: repair.ConditionNodeHealthy, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(now)}), NodePool: p}),
			repairs: []string{"nh"}},
		{name: "PreemptionScheduled=False is healthy", nodes: append(healthy(p, 9), repair.Node{Node: sick("spot", corev1.NodeCondition{
			Type: repair.ConditionPreemptionScheduled, Status: corev1.ConditionFalse}), NodePool: p})},
		{name: "pool guard: 2 of 5 unhealthy is more than 20%", nodes: append(healthy(p, 3),
			repair.Node{Node: sick("a", notReady(corev1.ConditionFalse, time.Hour)), NodePool: p},
			repair.Node{Node: sick("b", notReady(corev1.ConditionFalse, time.Hour)), NodePool: p}),
			blocked: []string{"a", "b"}},
		{name: "pool guard: 2 of 10 unhealthy is not", nodes: append(healthy(p, 8),
			repair.Node{Node: sick("a", notReady(corev1.ConditionFalse, time.Hour)), NodePool: p},
			repair.Node{Node: sick("b", notReady(corev1.ConditionFalse, time.Hour)), NodePool: p}),
			repairs: []string{"a", "b"}},
		{name: "cluster guard for nodes of no pool", nodes: []repair.Node{{Node: node("x")}, {Node: node("y")},
			{Node: sick("a", notReady(corev1.ConditionFalse, time.Hour))}, {Node: sick("b", notReady(corev1.ConditionFalse, time.Hour))}},
			blocked: []string{"a", "b"}},
		{name: "budget of one node: one repair per pass", nodes: append(healthy(pool("q", "1"), 8),
			repair.Node{Node: sick("a", notReady(corev1.ConditionFalse, time.Hour)), NodePool: pool("q", "1")},
			repair.Node{Node: sick("b", notReady(corev1.ConditionFalse, time.Hour)), NodePool: pool("q", "1")}),
			repairs: []string{"a"}, blocked: []string{"b"}},
		{name: "a node already deleting uses the budget", nodes: append(healthy(pool("q", "1"), 8),
			repair.Node{Node: node("going"), NodePool: pool("q", "1"), Deleting: true},
			repair.Node{Node: sick("a", notReady(corev1.ConditionFalse, time.Hour)), NodePool: pool("q", "1")}),
			blocked: []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := repair.Decide(repair.Input{Nodes: tt.nodes, Now: now})
			require.NoError(t, err)
			assert.Equal(t, orEmpty(tt.repairs), names(out.Repairs), "repairs")
			assert.Equal(t, orEmpty(tt.waiting), names(out.Waiting), "waiting")
			assert.Equal(t, orEmpty(tt.blocked), names(out.Blocked), "blocked")
			for _, r := range out.Repairs {
				assert.Contains(t, r.Why, "longer than the")
			}
			for _, r := range out.Blocked {
				assert.Contains(t, r.Why, "not repaired: ")
			}
		})
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestDecideOptions(t *testing.T) {
	p := pool("p", "")
	nodes := append(healthy(p, 9), repair.Node{Node: sick("bad", notReady(corev1.ConditionFalse, 30*time.Second)), NodePool: p})
	out, err := repair.Decide(repair.Input{Nodes: nodes, Now: now, Policies: repair.WithToleration(repair.AzurePolicies(), 20*time.Second)})
	require.NoError(t, err)
	assert.Equal(t, []string{"bad"}, names(out.Repairs), "a short toleration for tests")
	assert.Equal(t, "Ready=False for 30s, longer than the 20s toleration", out.Repairs[0].Why)

	out, err = repair.Decide(repair.Input{Nodes: nodes, Now: now, Policies: []repair.Policy{}})
	require.NoError(t, err)
	assert.Empty(t, out.Repairs, "no policies, no repair")

	zero := intstr.FromInt32(0)
	out, err = repair.Decide(repair.Input{Nodes: nodes, Now: now, MaxUnhealthy: &zero, Policies: repair.WithToleration(repair.AzurePolicies(), 0)})
	require.NoError(t, err)
	assert.Empty(t, out.Repairs)
	assert.Contains(t, out.Blocked[0].Why, "more than 0")

	bad := intstr.FromString("lots")
	_, err = repair.Decide(repair.Input{Nodes: nodes, Now: now, MaxUnhealthy: &bad})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lots")

	broken := pool("b", "")
	broken.Spec.Disruption.Budgets = []api.Budget{{Nodes: "ten"}}
	_, err = repair.Decide(repair.Input{Now: now, Nodes: []repair.Node{{Node: sick("x", notReady(corev1.ConditionFalse, time.Hour)), NodePool: broken},
		{Node: node("y"), NodePool: broken}, {Node: node("z"), NodePool: broken}, {Node: node("w"), NodePool: broken}, {Node: node("v"), NodePool: broken}}})
	require.Error(t, err, "a misconfigured budget is reported, not ignored")
	assert.Contains(t, err.Error(), "ten")
}
