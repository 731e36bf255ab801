package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/consolidation"
)

// TestReserveDrains: a pass's PDB allowances are lowered by the pods still to be evicted from
// nodes already being disrupted (marked, or with a deleting Node or NodeClaim); pods already
// terminating, pods of other nodes and PDBs of other namespaces do not count; no allowance goes
// below 0; the caller's PDB objects stay as they were.
func TestReserveDrains(t *testing.T) {
	t.Parallel()
	pdb := func(ns, app string, allowed int32) *policyv1.PodDisruptionBudget {
		return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: app},
			Spec:   policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed}}
	}
	app := func(name, label string, opts ...podOpt) *corev1.Pod {
		return newPod(name, append([]podOpt{labelled("app", label)}, opts...)...)
	}
	node := func(name string, deleting bool, pods ...*corev1.Pod) consolidation.Node {
		return consolidation.Node{Node: newNode(name, pid(name)), Deleting: deleting, Pods: pods}
	}
	goingNode := consolidation.Node{Node: newNode("going", pid("going"), nodeDeleting()), Pods: []*corev1.Pod{app("g1", "web")}}
	tests := []struct {
		name  string
		nodes []consolidation.Node
		want  map[string]int32 // namespace/name -> allowed
	}{
		{name: "nothing disrupted", nodes: []consolidation.Node{node("a", false, app("w1", "web"), app("w2", "web"))},
			want: map[string]int32{"default/web": 3, "default/db": 1, "other/web": 2}},
		{name: "a disrupted node's pods reserve", nodes: []consolidation.Node{
			node("a", true, app("w1", "web"), app("w2", "web"), app("w3", "web", deletedAt(testNow)), app("d1", "db")),
			node("b", false, app("w4", "web"))},
			want: map[string]int32{"default/web": 1, "default/db": 0, "other/web": 2}},
		{name: "never below zero", nodes: []consolidation.Node{
			node("a", true, app("d1", "db"), app("d2", "db"))},
			want: map[string]int32{"default/web": 3, "default/db": 0, "other/web": 2}},
		{name: "a deleting Node counts", nodes: []consolidation.Node{goingNode},
			want: map[string]int32{"default/web": 2, "default/db": 1, "other/web": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pdbs := []*policyv1.PodDisruptionBudget{pdb("default", "web", 3), pdb("default", "db", 1), pdb("other", "web", 2)}
			in := consolidation.Input{Nodes: tt.nodes, PodDisruptionBudgets: pdbs}
			reserveDrains(&in)
			got := map[string]int32{}
			for _, p := range in.PodDisruptionBudgets {
				got[p.Namespace+"/"+p.Name] = p.Status.DisruptionsAllowed
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, []int32{3, 1, 2}, mapSlice(pdbs, func(p *policyv1.PodDisruptionBudget) int32 {
				return p.Status.DisruptionsAllowed
			}), "the caller's PDBs unchanged")
		})
	}
}

// TestConsolidationInputReservesDrains: the controller's pass input carries the reservation: a
// node a command is acting on holds two pods under a PDB that allows one, so the next pass sees
// the PDB allowing none and leaves its other pods alone until that drain is done.
func TestConsolidationInputReservesDrains(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.addClass(t, "default")
	e.addPool(t, poolOf("default", "default"))
	e.addPDB(t, "web", 1, 2)
	for _, n := range []string{"a", "b"} {
		e.addNode(t, newNode(n, pid(n), isReady()))
		e.addClaim(t, testClaim(n, "default", pid(n), launched(), registered(), initialized()))
		e.addPod(t, newPod(n+"-1", boundTo(n), labelled("app", "web")), newPod(n+"-2", boundTo(n), labelled("app", "web")))
	}
	e.c.state.setDisrupting([]string{"a"}, true)
	in := e.c.consolidationInput(t.Context(), e.c.takeSnapshot())
	require.Len(t, in.PodDisruptionBudgets, 1)
	assert.Equal(t, int32(0), in.PodDisruptionBudgets[0].Status.DisruptionsAllowed)
	assert.Equal(t, int32(1), e.c.pdbs()[0].Status.DisruptionsAllowed, "the informer's copy unchanged")
}
