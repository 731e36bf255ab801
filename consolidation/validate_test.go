package consolidation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// fxValidateCluster: node n (big, $0.8/h) holds a 3-CPU pod that only "near" ($0.7/h) holds for
// less; node e is empty. Decide proposes delete Empty of e and replace n -> near.
func fxValidateCluster(opts ...fxPoolOpt) *fxCluster {
	types := []*instancetype.InstanceType{
		fxType(fxTypeSpec{name: "big", cpu: "4", memory: "4Gi"}),
		fxType(fxTypeSpec{name: "near", cpu: "4", memory: "3Gi"}),
	}
	c := newFxCluster(types, fxPool("default", fxOD, opts...))
	c.node("n", "", "big", fxZ1, fxOD, fxPod("p", "3", "1Gi"))
	c.node("e", "", "big", fxZ1, fxOD)
	return c
}

// TestValidate: a command of an earlier Decide holds on the same snapshot and on one that moved
// elsewhere; it fails, saying why, when its node went, was nominated, filled up, ran out of
// budget, or when the removal now gives another kind of command.
func TestValidate(t *testing.T) {
	plan, err := Decide(fxValidateCluster().input())
	require.NoError(t, err)
	require.Len(t, plan.Commands, 2, "%v", fxSummary(plan))
	var empty, replace Command
	for _, c := range plan.Commands {
		if c.Reason == ReasonEmpty {
			empty = c
		} else {
			replace = c
		}
	}
	require.Equal(t, []string{"e"}, empty.Nodes)
	require.Equal(t, CommandReplace, replace.Kind)
	tests := []struct {
		name   string
		cmds   []Command // validated in order; the last one's verdict is checked
		change func(c *fxCluster)
		why    string
	}{
		{name: "the pass, same snapshot", cmds: []Command{empty, replace}, change: func(*fxCluster) {}},
		{name: "empty, same snapshot", cmds: []Command{empty}, change: func(*fxCluster) {}},
		{name: "the pass, another node came", cmds: []Command{empty, replace}, change: func(c *fxCluster) {
			c.node("other", "", "near", fxZ1, fxOD, fxPod("q", "3", "2Gi"))
		}},
		{name: "a single node's drain paced by a PDB", cmds: []Command{empty, replace}, change: func(c *fxCluster) {
			c.nodes[0].Pods[0].Labels["app"] = "a"
			fxBind(c.nodes[0], fxPod("p2", "100m", "100Mi", fxLabel("app", "a")))
			c.pdb(fxPDB("pdb", "a", 1))
		}},
		{name: "a PDB allowing nothing", cmds: []Command{empty, replace}, change: func(c *fxCluster) {
			c.nodes[0].Pods[0].Labels["app"] = "a"
			c.pdb(fxPDB("pdb", "a", 0))
		}, why: "node n is no longer consolidatable"},
		{name: "node gone", cmds: []Command{empty, replace}, change: func(c *fxCluster) { c.nodes = c.nodes[1:] },
			why: "node n is no longer a candidate"},
		{name: "nominated", cmds: []Command{empty, replace}, change: func(c *fxCluster) { c.nodes[0].Nominated = true },
			why: "node n is no longer a candidate: nominated for pending pods"},
		{name: "empty node filled", cmds: []Command{empty}, change: func(c *fxCluster) { fxBind(c.nodes[1], fxPod("r", "1", "1Gi")) },
			why: "node e is no longer empty and consolidatable"},
		{name: "budget", cmds: []Command{replace}, change: func(c *fxCluster) {
			c.pools[0].Spec.Disruption.Budgets = []api.Budget{{Nodes: "0"}}
		}, why: "NodePool default's budget no longer allows it"},
		{name: "without the empty node's delete, now a delete", cmds: []Command{replace}, change: func(*fxCluster) {},
			why: "the removal now gives a delete with 0 replacements"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := fxValidateCluster()
			tc.change(c)
			got, err := Validate(c.input(), tc.cmds)
			require.NoError(t, err)
			require.Len(t, got, len(tc.cmds))
			last := got[len(got)-1]
			assert.Equal(t, tc.why, last.Why)
			if tc.why != "" {
				assert.Nil(t, last.Command)
				return
			}
			require.NotNil(t, last.Command)
			want := tc.cmds[len(tc.cmds)-1]
			assert.Equal(t, want.Kind, last.Command.Kind)
			assert.Equal(t, want.Nodes, last.Command.Nodes)
		})
	}
	_, err = Validate(fxValidateCluster().input(), []Command{{Kind: CommandDelete, Reason: ReasonDrifted, Nodes: []string{"n"}}})
	require.ErrorIs(t, err, ErrInvalidInput)
}
