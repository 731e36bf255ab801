package consolidation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/provisioner"
)

// fxHostSpread spreads pods labelled app=value across nodes (hostname) with max skew 1.
func fxHostSpread(value string) fxPodOpt {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: api.LabelHostname,
			WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": value}}}}
	}
}

// fxFullGuards adds nodes named names, of size-02, each filled by one pod and under do-not-disrupt:
// nodes that take no moved pod and are never removed, but count as hostname domains.
func fxFullGuards(c *fxCluster, names ...string) {
	for _, name := range names {
		n := c.node(name, "", fxSizeName(2), fxZ1, fxOD, fxPod(name, "1800m", "1Gi"))
		n.Node.Annotations = map[string]string{api.AnnotationDoNotDisrupt: "true"}
	}
}

// fxSplitCluster: node big (size-08, $1.6/h) holds two 1-CPU pods spread across hostnames with
// max skew 1; two full guard nodes hold none of them, so the pods may not share a node (the skew
// would be 2): no cheaper single node (size-04 would hold both) may take them, nor may the rest of
// the cluster, but two size-02 nodes ($0.4/h each) can, one pod each.
func fxSplitCluster(opts Options) Input {
	c := newFxCluster(fxSizedTypes(1, 2, 4, 8), fxPool("default", fxOD))
	c.opts = opts
	c.node("big", "", fxSizeName(8), fxZ1, fxOD, fxPods(2, "s", "1", "1Gi", fxHostSpread("s"))...)
	fxFullGuards(c, "guard-1", "guard-2")
	return c.input()
}

// fxManyCluster: nodes n1 and n2 (size-08, $1.6/h each) each hold one 900m pod of apps x, y and z;
// each app keeps one pod per node (hostname anti-affinity), and the catalogue has no size between 2
// and 8. Neither node's pods fit the other node, nor can one node take all six; on its own each
// node splits into two size-02 nodes ($0.8/h); together the six pods fit three size-02 nodes
// ($1.2/h: two pods of different apps each).
func fxManyCluster(opts Options) Input {
	c := newFxCluster(fxSizedTypes(2, 8), fxPool("default", fxOD))
	c.opts = opts
	for _, name := range []string{"n1", "n2"} {
		var pods []*corev1.Pod
		for _, app := range []string{"x", "y", "z"} {
			pods = append(pods, fxPod(app+"-"+name, "900m", "256Mi", fxLabel("app", app), fxAntiAffinity(app)))
		}
		c.node(name, "", fxSizeName(8), fxZ1, fxOD, pods...)
	}
	return c.input()
}

// fxCheckMultiReplace checks a command with several replacements: kind replace, the nodes, n
// replacements of typ with distinct names, Replacement the first of them, launch lists without the
// removed type, the savings, every pod of the removed nodes moved to one of the replacements, which
// list it among their pods. It returns the pods per replacement.
func fxCheckMultiReplace(t *testing.T, c Command, nodes []string, n int, typ string, savings float64) map[string][]string {
	t.Helper()
	assert.Equal(t, CommandReplace, c.Kind)
	assert.Equal(t, ReasonUnderutilized, c.Reason)
	assert.Equal(t, nodes, c.Nodes)
	require.Len(t, c.Replacements, n, "%v", fxSummary(&Plan{Commands: []Command{c}}))
	require.NotNil(t, c.Replacement)
	assert.Equal(t, c.Replacements[0], *c.Replacement, "Replacement is the first of Replacements")
	assert.InDelta(t, savings, c.SavingsPerHour, 1e-9)
	assert.Positive(t, c.SavingsPerHour)
	listed := map[string][]string{}
	for _, r := range c.Replacements {
		assert.Equal(t, typ, r.InstanceType, "replacement %s", r.Name)
		assert.NotContains(t, r.InstanceTypeOptions, fxSizeName(8), "replacement %s may launch as the removed type", r.Name)
		assert.NotContains(t, listed, r.Name, "replacement name %s is used twice", r.Name)
		listed[r.Name] = r.Pods
	}
	perClaim := map[string][]string{}
	for _, m := range c.Moves {
		pods, ok := listed[m.To]
		if assert.True(t, ok, "pod %s moves to %q, not to a replacement", m.Pod, m.To) {
			assert.Contains(t, pods, m.Pod, "replacement %s does not list pod %s", m.To, m.Pod)
			perClaim[m.To] = append(perClaim[m.To], m.Pod)
		}
	}
	assert.Len(t, perClaim, n, "every replacement receives a pod")
	return perClaim
}

// fxCheckAppliedSaving applies the plan: it passes the independent checks of the property test and
// the cluster's price falls by at least the announced savings.
func fxCheckAppliedSaving(t *testing.T, in Input, plan *Plan) {
	t.Helper()
	next := fxCheckSafe(t, in, plan)
	assert.LessOrEqual(t, fxClusterCost(t, next), fxClusterCost(t, in)-plan.Stats.SavingsPerHour+1e-9)
}

// TestAllowSplit: one node replaced by two cheaper NodeClaims, in one command, only with AllowSplit
// (or AllowManyToMany, which allows every shape).
func TestAllowSplit(t *testing.T) {
	t.Run("default finds nothing", func(t *testing.T) {
		plan, err := Decide(fxSplitCluster(Options{}))
		require.NoError(t, err)
		assert.Empty(t, plan.Commands, "%v", fxSummary(plan))
	})
	for _, tc := range []struct {
		name string
		opts Options
	}{{"AllowSplit", Options{AllowSplit: true}}, {"AllowManyToMany", Options{AllowManyToMany: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			in := fxSplitCluster(tc.opts)
			plan, err := Decide(in)
			require.NoError(t, err)
			require.Len(t, plan.Commands, 1, "%v", fxSummary(plan))
			t.Logf("%v, moves %v", fxSummary(plan), plan.Commands[0].Moves)
			perClaim := fxCheckMultiReplace(t, plan.Commands[0], []string{"big"}, 2, fxSizeName(2), 1.6-2*0.4)
			for claim, pods := range perClaim {
				assert.Len(t, pods, 1, "the spread puts one pod on each replacement, %s has %v", claim, pods)
			}
			assert.InDelta(t, 0.8, plan.Stats.SavingsPerHour, 1e-9)
			fxCheckAppliedSaving(t, in, plan)
			next, err := Apply(in, plan)
			require.NoError(t, err)
			again, err := Decide(next)
			require.NoError(t, err)
			assert.Empty(t, again.Commands, "the split settles: %v", fxSummary(again))
		})
	}
}

// TestAllowManyToMany: two nodes replaced by three cheaper NodeClaims, in one command, only with
// AllowManyToMany; AllowSplit alone splits each node in two, which saves less.
func TestAllowManyToMany(t *testing.T) {
	t.Run("default finds nothing", func(t *testing.T) {
		plan, err := Decide(fxManyCluster(Options{}))
		require.NoError(t, err)
		assert.Empty(t, plan.Commands, "%v", fxSummary(plan))
	})
	t.Run("AllowSplit splits each node", func(t *testing.T) {
		in := fxManyCluster(Options{AllowSplit: true})
		plan, err := Decide(in)
		require.NoError(t, err)
		require.Len(t, plan.Commands, 2, "%v", fxSummary(plan))
		for i, node := range []string{"n1", "n2"} {
			fxCheckMultiReplace(t, plan.Commands[i], []string{node}, 2, fxSizeName(2), 1.6-2*0.4)
		}
		fxCheckAppliedSaving(t, in, plan)
	})
	t.Run("AllowManyToMany", func(t *testing.T) {
		in := fxManyCluster(Options{AllowManyToMany: true})
		plan, err := Decide(in)
		require.NoError(t, err)
		require.Len(t, plan.Commands, 1, "%v", fxSummary(plan))
		t.Logf("%v, moves %v", fxSummary(plan), plan.Commands[0].Moves)
		perClaim := fxCheckMultiReplace(t, plan.Commands[0], []string{"n1", "n2"}, 3, fxSizeName(2), 2*1.6-3*0.4)
		for claim, pods := range perClaim {
			apps := map[string]bool{}
			for _, pod := range pods {
				app := pod[len("default/"):len("default/x")]
				assert.False(t, apps[app], "replacement %s holds two pods of app %s: %v", claim, app, pods)
				apps[app] = true
			}
		}
		fxCheckAppliedSaving(t, in, plan)
	})
}

// TestManyReplacementsPriced: a command with several replacements caps each launch list at its
// cheapest type plus an equal share of the savings, so that the command saves whichever types
// launch; a single replacement keeps every type cheaper than the removed nodes.
func TestManyReplacementsPriced(t *testing.T) {
	types := fxSizedTypes(1, 2, 3, 4, 8)
	pool := fxPool("default", fxOD)
	in := newFxCluster(types, pool).input()
	book := newPriceBook(&in)
	claim := func(name string, options ...int) provisioner.NodeClaim {
		nc := provisioner.NodeClaim{Name: name, NodePool: pool.Name, Zone: fxZ1, CapacityType: fxOD}
		for _, i := range options {
			nc.InstanceTypeOptions = append(nc.InstanceTypeOptions, fxSizeName(i))
		}
		nc.InstanceType = nc.InstanceTypeOptions[0]
		return nc
	}
	removed := replaceRule{below: 1.6, removedTypes: map[string]float64{fxSizeName(8): 1.6}}
	for _, tc := range []struct {
		name   string
		claims []provisioner.NodeClaim
		want   [][]int
		worst  float64
		why    string
	}{
		{name: "one claim keeps every cheaper type", claims: []provisioner.NodeClaim{claim("a", 1, 2, 3, 4, 8)},
			want: [][]int{{1, 2, 3, 4}}, worst: 0.8},
		// slack 1.6 - 0.2 - 0.4 = 1.0, 0.5 each: a below 0.7, b below 0.9.
		{name: "two claims share the savings", claims: []provisioner.NodeClaim{claim("a", 1, 2, 3, 4, 8), claim("b", 2, 3, 4, 8)},
			want: [][]int{{1, 2, 3}, {2, 3, 4}}, worst: 0.6 + 0.8},
		{name: "two claims at the removed price", claims: []provisioner.NodeClaim{claim("a", 4, 8), claim("b", 4, 8)},
			why: "the replacements together cost as much as the removed nodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, worst, why := book.priceAll(tc.claims, removed)
			assert.Equal(t, tc.why, why)
			if tc.why != "" {
				return
			}
			require.Len(t, out, len(tc.want))
			for i, nc := range out {
				var want []string
				for _, size := range tc.want[i] {
					want = append(want, fxSizeName(size))
				}
				assert.Equal(t, want, nc.InstanceTypeOptions, "claim %s", nc.Name)
			}
			assert.InDelta(t, tc.worst, worst, 1e-9)
			assert.Less(t, worst, removed.below)
		})
	}
}
