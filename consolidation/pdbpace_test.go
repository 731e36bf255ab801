package consolidation

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/napkit/napkit/api"
)

// pacingCluster is one size-08 node with room (a 6-CPU filler pod) and n size-02 nodes a, b, c...
// each holding per pods of app=web (100m each), under a PDB allowing allowed.
func pacingCluster(n, per int, allowed int32, opts Options) Input {
	c := newFxCluster(fxSizedTypes(2, 8), fxPool("general", fxOD))
	c.opts = opts
	c.node("big", "", fxSizeName(8), fxZones[0], fxOD, fxPod("filler", "6", "1Gi"))
	for i := range n {
		name := string(rune('a' + i))
		c.node(name, "", fxSizeName(2), fxZones[0], fxOD, fxPods(per, "web-"+name, "100m", "128Mi", fxLabel("app", "web"))...)
	}
	c.pdb(fxPDB("web", "web", allowed))
	return c.input()
}

// pacingRows summarises a plan: each command's nodes, evictions and PacedBy; each deferral's nodes
// and budgets.
func pacingRows(plan *Plan) (commands, deferred []string) {
	for _, c := range plan.Commands {
		commands = append(commands, fmt.Sprintf("%s %v evicts %d paced %v", c.Reason, c.Nodes, len(c.Moves), c.PacedBy))
	}
	for _, d := range plan.Deferred {
		deferred = append(deferred, fmt.Sprintf("%s %v %+v", d.Reason, d.Nodes, d.Budgets))
	}
	return commands, deferred
}

// TestPDBPacing: the pass's evictions under a PDB stay within its allowance; a node whose own
// pods exceed the allowance goes alone, paced; the rest is deferred, naming the PDB; without
// pacing one command asks for more than the PDB allows.
func TestPDBPacing(t *testing.T) {
	tests := []struct {
		name         string
		in           Input
		wantCommands []string
		wantDeferred []string
	}{
		// a's pod goes to b, which is then a destination, not a deferred command.
		{"one replica per node, allows 1: one node now, another deferred", pacingCluster(3, 1, 1, Options{}),
			[]string{"Underutilized [a] evicts 1 paced []"},
			[]string{"Underutilized [c] [{PodDisruptionBudget:default/web Evictions:1 Allowed:0}]"}},
		{"allows 2: two nodes in one command", pacingCluster(4, 1, 2, Options{}),
			[]string{"Underutilized [a b] evicts 2 paced []"},
			[]string{"Underutilized [c] [{PodDisruptionBudget:default/web Evictions:1 Allowed:0}]",
				"Underutilized [d] [{PodDisruptionBudget:default/web Evictions:1 Allowed:0}]"}},
		{"two replicas per node, allows 1: one node, drained one at a time", pacingCluster(3, 2, 1, Options{}),
			[]string{"Underutilized [a] evicts 2 paced [default/web]"},
			[]string{"Underutilized [c] [{PodDisruptionBudget:default/web Evictions:2 Allowed:0}]"}},
		{"allows 0: blocked, nothing deferred", pacingCluster(2, 1, 0, Options{}), nil, nil},
		{"unpaced: one command takes every node", pacingCluster(3, 2, 1, Options{UnpacedPDBs: true}),
			[]string{"Underutilized [a b c] evicts 6 paced []"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := Decide(tt.in)
			require.NoError(t, err)
			commands, deferred := pacingRows(plan)
			assert.Equal(t, tt.wantCommands, commands)
			assert.Equal(t, tt.wantDeferred, deferred)
			assert.NotNil(t, plan.Deferred)
		})
	}
}

// TestPDBPacingExpirationFirst: an expired node's drain is charged first and never held back; the
// consolidation candidate under the same PDB then waits.
func TestPDBPacingExpirationFirst(t *testing.T) {
	in := pacingCluster(3, 1, 1, Options{})
	fxClaim(&in.Nodes[2]).Spec.ExpireAfter = api.NewDuration(time.Hour) // node b, a day old
	plan, err := Decide(in)
	require.NoError(t, err)
	commands, deferred := pacingRows(plan)
	assert.Equal(t, []string{"Expired [b] evicts 1 paced []"}, commands)
	require.Len(t, deferred, 1, "b's pod lands on a or c; the other waits")
	assert.Contains(t, deferred[0], "[{PodDisruptionBudget:default/web Evictions:1 Allowed:0}]")
}

// TestPDBPacingComputedAllowance: a PDB whose status is absent allows what its spec and the Ready
// pods give: maxUnavailable 1 over three Ready replicas, so one node goes.
func TestPDBPacingComputedAllowance(t *testing.T) {
	in := pacingCluster(3, 1, 0, Options{})
	in.PodDisruptionBudgets[0].Spec.MinAvailable = nil
	one := intstr.FromInt32(1)
	in.PodDisruptionBudgets[0].Spec.MaxUnavailable = &one
	for i := range in.Nodes {
		for _, p := range in.Nodes[i].Pods {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}
	}
	plan, err := Decide(in)
	require.NoError(t, err)
	commands, _ := pacingRows(plan)
	assert.Equal(t, []string{"Underutilized [a] evicts 1 paced []"}, commands)
}
