package consolidation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestReserveDrains: a pass's PDB allowances are lowered by the pods still to be evicted from
// nodes already being disrupted (marked Deleting, or with a deleting Node or NodeClaim); pods
// already terminating, pods of other nodes and PDBs of other namespaces do not count; no allowance
// goes below 0; the caller's PDB objects stay as they were.
func TestReserveDrains(t *testing.T) {
	t.Parallel()
	pdb := func(ns, app string, allowed int32) *policyv1.PodDisruptionBudget {
		p := pdbFor(app, observed(1, allowed))
		p.Namespace, p.Name = ns, app
		return p
	}
	app := func(name, label string, deleted bool) *corev1.Pod {
		p := appPods(label, 1, 1)[0]
		p.Name = name
		if deleted {
			p.DeletionTimestamp = &metav1.Time{Time: time.Unix(0, 0)}
		}
		return p
	}
	node := func(name string, deleting bool, pods ...*corev1.Pod) Node {
		return Node{Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, Deleting: deleting, Pods: pods}
	}
	goingNode := node("going", false, app("g1", "web", false))
	goingNode.Node.DeletionTimestamp = &metav1.Time{Time: time.Unix(0, 0)}
	tests := []struct {
		name  string
		nodes []Node
		want  map[string]int // namespace/name -> allowed
	}{
		{name: "nothing disrupted", nodes: []Node{node("a", false, app("w1", "web", false), app("w2", "web", false))},
			want: map[string]int{"default/web": 3, "default/db": 1, "other/web": 2}},
		{name: "a disrupted node's pods reserve", nodes: []Node{
			node("a", true, app("w1", "web", false), app("w2", "web", false), app("w3", "web", true), app("d1", "db", false)),
			node("b", false, app("w4", "web", false))},
			want: map[string]int{"default/web": 1, "default/db": 0, "other/web": 2}},
		{name: "never below zero", nodes: []Node{
			node("a", true, app("d1", "db", false), app("d2", "db", false))},
			want: map[string]int{"default/web": 3, "default/db": 0, "other/web": 2}},
		{name: "a deleting Node counts", nodes: []Node{goingNode},
			want: map[string]int{"default/web": 2, "default/db": 1, "other/web": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pdbs := []*policyv1.PodDisruptionBudget{pdb("default", "web", 3), pdb("default", "db", 1), pdb("other", "web", 2)}
			in := Input{Nodes: tt.nodes, PodDisruptionBudgets: pdbs}
			ix := newPDBIndex(pdbs)
			require.NoError(t, ix.computeAllowances(&in))
			got := map[string]int{}
			for _, list := range ix {
				for _, e := range list {
					got[e.pdb.Namespace+"/"+e.pdb.Name] = e.allowed
				}
			}
			assert.Equal(t, tt.want, got)
			for i, want := range []int32{3, 1, 2} {
				assert.Equal(t, want, pdbs[i].Status.DisruptionsAllowed, "the caller's PDBs unchanged")
			}
		})
	}
}
