package consolidation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
)

// TestUnneeded: the nodes a pass would remove without budgets and consolidateAfter, every other
// rule kept. Each case names the nodes by hand; the pass with the limits (Decide) is shown beside
// it, to see which limit each case lifts.
func TestUnneeded(t *testing.T) {
	type build func() *fxCluster
	tenPercent := fxBudgets(fxBudget("10%", "", 0))
	emptyNodes := func(pool ...fxPoolOpt) build {
		return func() *fxCluster {
			c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD, pool...))
			for _, name := range fxNames("empty", 4) {
				c.node(name, "", fxDefaultType, fxZ1, fxOD)
			}
			return c
		}
	}
	tests := []struct {
		name          string
		cluster       build
		mark          func(*fxCluster)
		decided, want []string
	}{
		{name: "the budget allows one of four empty nodes; all are unneeded", cluster: emptyNodes(tenPercent),
			decided: []string{"empty-00"}, want: []string{"empty-00", "empty-01", "empty-02", "empty-03"}},
		{name: "a pod event inside consolidateAfter", cluster: emptyNodes(fxBudgets(fxBudget("100%", "", 0)), fxConsolidateAfter(time.Hour)),
			mark:    func(c *fxCluster) { c.nodes[1].LastPodEventAt = fxNow.Add(-time.Minute) },
			decided: []string{"empty-00", "empty-02", "empty-03"}, want: []string{"empty-00", "empty-01", "empty-02", "empty-03"}},
		{name: "consolidateAfter Never", cluster: emptyNodes(fxConsolidateNever())},
		{name: "a budget of zero nodes", cluster: emptyNodes(fxBudgets(fxBudget("0", "", 0))),
			want: []string{"empty-00", "empty-01", "empty-02", "empty-03"}},
		{name: "do-not-disrupt and nominated nodes stay", cluster: emptyNodes(tenPercent),
			mark: func(c *fxCluster) {
				fxBind(c.nodes[0], fxPod("keep", "100m", "128Mi", fxAnnotate(api.AnnotationDoNotDisrupt, "true")))
				c.nodes[1].Nominated = true
				c.nodes[2].Deleting = true
			},
			want: []string{"empty-03"}},
		{name: "deleting nodes hold no budget", cluster: emptyNodes(fxBudgets(fxBudget("100%", "", 0))),
			mark: func(c *fxCluster) {
				for _, name := range fxNames("going", 3) {
					c.node(name, "", fxDefaultType, fxZ1, fxOD).Deleting = true
				}
			},
			decided: []string{"empty-00"}, want: []string{"empty-00", "empty-01", "empty-02", "empty-03"}},
		{name: "full nodes are needed", cluster: func() *fxCluster {
			c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD, tenPercent))
			c.node("full-a", "", fxDefaultType, fxZ1, fxOD, fxPods(1, "a", "3", "3Gi")...)
			c.node("full-b", "", fxDefaultType, fxZ1, fxOD, fxPods(1, "b", "3", "3Gi")...)
			return c
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cluster()
			if tc.mark != nil {
				tc.mark(c)
			}
			in := c.input()
			plan, err := Decide(in)
			require.NoError(t, err)
			assert.Equal(t, tc.decided, orNil(fxRemoved(plan)), "Decide, with the limits")
			got, err := Unneeded(in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got, "Unneeded")
			again := c.input()
			assert.Equal(t, again.NodePools[0].NodePool.Spec.Disruption, in.NodePools[0].NodePool.Spec.Disruption, "the pools are not modified")
			for i := range in.Nodes {
				assert.Equal(t, again.Nodes[i].LastPodEventAt, in.Nodes[i].LastPodEventAt, "node %d is not modified", i)
			}
		})
	}
}

// Unneeded's errors are Decide's: an input Decide refuses is refused the same way.
func TestUnneededInputError(t *testing.T) {
	in := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD)).input()
	in.Now = time.Time{}
	_, want := Decide(in)
	require.Error(t, want)
	_, err := Unneeded(in)
	assert.ErrorIs(t, err, ErrInvalidInput)
	assert.Equal(t, want.Error(), err.Error())
}

func orNil(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
