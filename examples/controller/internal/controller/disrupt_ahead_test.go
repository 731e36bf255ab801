package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/consolidation"
)

func TestAheadOf(t *testing.T) {
	t.Parallel()
	del := func(to string, nodes ...string) consolidation.Command {
		cmd := consolidation.Command{Kind: consolidation.CommandDelete, Nodes: nodes}
		if to != "" {
			cmd.Moves = []consolidation.Move{{Pod: "ns/p", To: to}}
		}
		return cmd
	}
	replace := consolidation.Command{Kind: consolidation.CommandReplace, Nodes: []string{"r"}}
	tests := []struct {
		name                    string
		cmds                    []consolidation.Command
		departing, destinations []string
		none                    bool
	}{
		{name: "no commands: nothing to decide ahead of", none: true},
		{name: "empty deletes", cmds: []consolidation.Command{del("", "a", "b"), del("", "c")},
			departing: []string{"a", "b", "c"}, destinations: []string{}},
		{name: "a delete's pods make their destination no candidate", cmds: []consolidation.Command{del("d", "a")},
			departing: []string{"a"}, destinations: []string{"d"}},
		{name: "a replace keeps its nodes until its replacement boots", cmds: []consolidation.Command{del("", "a"), replace}, none: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := aheadOf(tt.cmds)
			if tt.none {
				assert.Nil(t, a)
				return
			}
			require.NotNil(t, a)
			assert.ElementsMatch(t, tt.departing, sets.List(a.departing))
			assert.ElementsMatch(t, tt.destinations, sets.List(a.destinations))
		})
	}
}

// TestMarkAhead: on the controller's own pass input, the deleted nodes still being disrupted are
// Departing (and Deleting), a node whose command rolled back is an ordinary node again, a
// destination of a delete's pods is Nominated, and the other nodes are left as they were.
func TestMarkAhead(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.addClass(t, "default")
	e.addPool(t, poolOf("default", "default"))
	for _, n := range []string{"gone", "rolledBack", "dest", "other"} {
		e.addNode(t, newNode(n, pid(n), isReady()))
		e.addClaim(t, testClaim(n, "default", pid(n), launched(), registered(), initialized()))
	}
	e.c.state.setDisrupting([]string{"gone"}, true)
	ahead := aheadOf([]consolidation.Command{
		{Kind: consolidation.CommandDelete, Nodes: []string{"gone"}, Moves: []consolidation.Move{{Pod: "ns/p", To: "dest"}}},
		{Kind: consolidation.CommandDelete, Nodes: []string{"rolledBack"}},
	})
	in := e.c.consolidationInput(t.Context(), e.c.takeSnapshot())
	ahead.mark(&in, e.c.state.isDisrupting)
	type flags struct{ deleting, departing, nominated bool }
	got := map[string]flags{}
	for _, n := range in.Nodes {
		got[n.Node.Name] = flags{n.Deleting, n.Departing, n.Nominated}
	}
	assert.Equal(t, map[string]flags{
		"gone": {deleting: true, departing: true}, "rolledBack": {}, "dest": {nominated: true}, "other": {},
	}, got)

	var none *deletesAhead
	in = e.c.consolidationInput(t.Context(), e.c.takeSnapshot())
	none.mark(&in, e.c.state.isDisrupting)
	for _, n := range in.Nodes {
		assert.False(t, n.Departing, "no decision ahead: %s", n.Node.Name)
	}
}
