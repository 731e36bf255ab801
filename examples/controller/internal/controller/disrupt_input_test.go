package controller

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/consolidation"
)

// TestConsolidationInputReservesDrains: the controller's pass input carries what consolidation
// reserves by (its TestReserveDrains): a node a command is acting on, holding two pods under a
// PDB that allows one, is marked Deleting, so the next pass sees the PDB allowing none and leaves
// the other pods alone until that drain is done.
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
	deleting := map[string]bool{}
	for _, n := range in.Nodes {
		deleting[n.Node.Name] = n.Deleting
	}
	assert.Equal(t, map[string]bool{"a": true, "b": false}, deleting)
	assert.Len(t, in.Nodes[slices.IndexFunc(in.Nodes, func(n consolidation.Node) bool { return n.Node.Name == "a" })].Pods, 2)
	allowed, _, err := consolidation.PDBAllowance(in.PodDisruptionBudgets[0], nil, testNow)
	require.NoError(t, err)
	assert.Equal(t, 1, allowed, "the PDB's own allowance; consolidation takes the drain off")
}
