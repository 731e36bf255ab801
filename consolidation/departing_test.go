package consolidation

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDepartingNode: a decision made ahead, while a delete finishes, sees the departing node's
// budget as free and the node itself as Deleting otherwise; a Deleting node holds the budget.
// The plan is compared with one decided on the cluster without the node at all, and, where the
// departing node's pods need room, with one that keeps the node Deleting.
func TestDepartingNode(t *testing.T) {
	emptyCluster := func(mark func(*Node)) *fxCluster {
		c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD, fxBudgets(fxBudget("10%", "", 0))))
		for _, name := range fxNames("empty", 10) {
			c.node(name, "", fxDefaultType, fxZ1, fxOD)
		}
		if mark != nil {
			mark(c.node("going-00", "", fxDefaultType, fxZ1, fxOD))
		}
		return c
	}
	deleting := func(n *Node) { n.Deleting = true }
	departing := func(n *Node) { n.Deleting, n.Departing = true, true }
	departingOnly := func(n *Node) { n.Departing = true }

	held, err := Decide(emptyCluster(deleting).input())
	require.NoError(t, err)
	assert.Empty(t, fxRemoved(held), "10 % of 10 nodes is 1, which the deleting node holds")

	without, err := Decide(emptyCluster(nil).input())
	require.NoError(t, err)
	require.Len(t, fxRemoved(without), 1, "the cluster without the node: one node per budget")
	for name, mark := range map[string]func(*Node){"departing": departing, "departing, not marked Deleting": departingOnly} {
		t.Run(name, func(t *testing.T) {
			ahead, err := Decide(emptyCluster(mark).input())
			require.NoError(t, err)
			assert.Equal(t, fxRemoved(without), fxRemoved(ahead), "the same decision as without the node")
			assert.NotContains(t, fxRemoved(ahead), "going-00", "a departing node is not a candidate")
		})
	}
}

// TestDepartingNodeIsNoDestination: a departing node is Deleting in every respect but the
// budgets: its pods are placed like a deleting node's, and no pod moves onto it, though it is the
// only node with room for a (the plan with the node as an ordinary one shows the difference).
func TestDepartingNodeIsNoDestination(t *testing.T) {
	build := func(mark func(*Node)) Input {
		c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD, fxBudgets(fxBudget("100%", "", 0))))
		going := c.node("going", "", fxDefaultType, fxZ1, fxOD, fxPods(1, "going", "500m", "512Mi")...)
		c.node("a", "", fxDefaultType, fxZ1, fxOD, fxPods(1, "a", "3", "512Mi")...)
		c.node("b", "", fxDefaultType, fxZ1, fxOD, fxPods(1, "b", "3", "512Mi")...)
		mark(going)
		return c.input()
	}
	deletingPlan, err := Decide(build(func(n *Node) { n.Deleting = true }))
	require.NoError(t, err)
	assert.Empty(t, commandsOf(deletingPlan), "a and b cannot merge, and going is no destination")
	ordinary, err := Decide(build(func(*Node) {}))
	require.NoError(t, err)
	require.NotEmpty(t, commandsOf(ordinary), "with going an ordinary node, something moves")
	for name, mark := range map[string]func(*Node){
		"departing":                      func(n *Node) { n.Deleting, n.Departing = true, true },
		"departing, not marked Deleting": func(n *Node) { n.Departing = true },
	} {
		t.Run(name, func(t *testing.T) {
			plan, err := Decide(build(mark))
			require.NoError(t, err)
			assert.Equal(t, commandsOf(deletingPlan), commandsOf(plan))
		})
	}
}

// commandsOf summarizes a plan's commands as "kind reason nodes".
func commandsOf(plan *Plan) []string {
	out := []string{}
	for _, cmd := range plan.Commands {
		out = append(out, fmt.Sprintf("%s %s %v", cmd.Kind, cmd.Reason, cmd.Nodes))
	}
	return out
}
