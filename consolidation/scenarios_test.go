package consolidation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/napkit/napkit/api"
)

// fxScenario is one Decide call on a hand-built cluster. want, when not nil, is the exact fxSummary of
// the plan; check, when set, asserts what want cannot say exactly.
type fxScenario struct {
	name  string
	build func() Input
	want  []string
	check func(t *testing.T, in Input, plan *Plan)
}

func fxRunScenarios(t *testing.T, scenarios []fxScenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			in := sc.build()
			plan, err := Decide(in)
			require.NoError(t, err)
			require.NotNil(t, plan)
			assert.Equal(t, PlanKind, plan.Kind)
			if sc.want != nil {
				assert.Equal(t, sc.want, fxSummary(plan))
			}
			if sc.check != nil {
				sc.check(t, in, plan)
			}
		})
	}
}

const (
	fxOD   = api.CapacityTypeOnDemand
	fxSpot = api.CapacityTypeSpot
	fxZ1   = "test-zone-1"
	fxZ2   = "test-zone-2"
	fxZ3   = "test-zone-3"

	fxDefaultType = "default-instance-type"
	fxSmallType   = "small-instance-type"
)

// TestKarpenterConsolidationScenarios is karpenter-core.md section 5, rows 26-36.
func TestKarpenterConsolidationScenarios(t *testing.T) {
	fxRunScenarios(t, []fxScenario{
		{name: "26 only 3 of 10 empty nodes under a 30% budget", build: fxRow26, check: fxCheckRow26},
		{name: "27 can delete nodes", build: fxTwoSmallNodes("100m"), want: []string{"delete Underutilized [b]"},
			check: fxWantMoves(map[string]string{"default/b-0": "a"})},
		{name: "28 can delete nodes, considers PDB", build: fxTwoSmallNodes("100m", fxPDB("b", "b", 0)),
			want: []string{"delete Underutilized [a]"}, check: fxCheckRow28},
		{name: "29 can merge 3 nodes into 1 (on-demand)", build: fxRow29(fxOD, false), check: fxCheckRow29},
		{name: "29 can merge 3 nodes into 1 (spot)", build: fxRow29(fxSpot, true), check: fxCheckRow29},
		{name: "30 won't merge 2 nodes into 1 of the same type", build: fxTwoSmallNodes("100m"),
			want: []string{"delete Underutilized [b]"}, check: fxCheckNoSameType},
		{name: "31 can replace node", build: fxRow31, check: fxCheckRow31},
		{name: "32 no spot-to-spot with fewer than 15 cheaper types", build: fxOneNode(fxSizes(5), 2, fxSpot, true), want: []string{}},
		{name: "32 on-demand is replaced without the 15-type rule", build: fxOneNode(fxSizes(5), 2, fxOD, false),
			want: []string{"replace Underutilized [n] -> size-01 on-demand"}},
		{name: "32 no spot-to-spot without the option", build: fxOneNode(fxSizes(20), 20, fxSpot, false), want: []string{}},
		{name: "33 no spot-to-spot from among the 15 cheapest", build: fxOneNode(fxSizes(20), 2, fxSpot, true), want: []string{}},
		{name: "33 spot-to-spot launch list is cut to the 15 cheapest", build: fxOneNode(fxSizes(20), 20, fxSpot, true),
			check: fxCheckSpotToSpot},
		{name: "34 won't delete node if it would violate pod anti-affinity", build: fxRow34, want: []string{}},
		{name: "35 can replace node maintaining zonal topology spread", build: fxRow35,
			want: []string{"replace Underutilized [zone-2] -> small-instance-type on-demand"},
			check: func(t *testing.T, _ Input, plan *Plan) {
				require.Len(t, plan.Commands, 1)
				require.NotNil(t, plan.Commands[0].Replacement)
				assert.Equal(t, fxZ2, plan.Commands[0].Replacement.Zone, "the spread keeps one pod per zone")
			}},
		{name: "36 consolidates the node with best savings ratio first", build: fxTwoSmallNodes("500m"),
			want: []string{"delete Underutilized [b]"}},
	})
}

func fxRow26() Input {
	c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD, fxBudgets(fxBudget("30%", "", 0))))
	for _, name := range fxNames("empty", 10) {
		c.node(name, "", fxDefaultType, fxZ1, fxOD)
	}
	return c.input()
}

func fxCheckRow26(t *testing.T, _ Input, plan *Plan) {
	assert.Len(t, fxRemovedFor(plan, ReasonEmpty), 3)
	assert.Len(t, fxRemoved(plan), 3, "7 nodes remain")
	for _, c := range plan.Commands {
		assert.Equal(t, CommandDelete, c.Kind)
		assert.Nil(t, c.Replacement)
		assert.Empty(t, c.Moves)
	}
}

// fxTwoSmallNodes: a holds 2 pods, b holds 1, all of cpu; small-instance-type is the cheapest amd64
// type, so nothing can replace either node. pdbs are added.
func fxTwoSmallNodes(cpu string, pdbs ...*policyv1.PodDisruptionBudget) func() Input {
	return func() Input {
		c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD))
		c.node("a", "", fxSmallType, fxZ1, fxOD, fxPods(2, "a", cpu, "100Mi")...)
		c.node("b", "", fxSmallType, fxZ1, fxOD, fxPods(1, "b", cpu, "100Mi")...)
		c.pdbs = pdbs
		return c.input()
	}
}

func fxWantMoves(want map[string]string) func(*testing.T, Input, *Plan) {
	return func(t *testing.T, _ Input, plan *Plan) {
		got := map[string]string{}
		for _, c := range plan.Commands {
			for _, m := range c.Moves {
				got[m.Pod] = m.To
			}
		}
		assert.Equal(t, want, got)
	}
}

func fxCheckRow28(t *testing.T, in Input, plan *Plan) {
	fxWantMoves(map[string]string{"default/a-0": "b", "default/a-1": "b"})(t, in, plan)
	assert.Contains(t, fxBlockedNodes(plan), "b", "b's pod is under a PDB allowing 0 disruptions")
}

func fxRow29(capacityType string, spotToSpot bool) func() Input {
	return func() Input {
		c := newFxCluster(fxKarpenterTypes(), fxPool("default", capacityType))
		c.opts.SpotToSpot = spotToSpot
		for i, name := range []string{"x", "y", "z"} {
			c.node(name, "", fxDefaultType, fxZones[i%2], capacityType, fxPods(1, name, "100m", "100Mi")...)
		}
		return c.input()
	}
}

// fxCheckRow29: the three nodes go, one small node replaces them, saving 3·0.8 − 0.4.
func fxCheckRow29(t *testing.T, in Input, plan *Plan) {
	assert.Equal(t, []string{"x", "y", "z"}, fxRemoved(plan))
	var types []string
	savings := 0.0
	for _, c := range plan.Commands {
		savings += c.SavingsPerHour
		for _, r := range fxReplacements(c) {
			types = append(types, r.InstanceType)
			assert.Equal(t, in.Nodes[0].Node.Labels[api.LabelCapacityType], r.CapacityType)
		}
	}
	assert.Equal(t, []string{fxSmallType}, types)
	assert.InDelta(t, 2.0, savings, 1e-6)
}

func fxCheckNoSameType(t *testing.T, in Input, plan *Plan) {
	typeOf := map[string]string{}
	for _, n := range in.Nodes {
		typeOf[n.Node.Name] = n.Node.Labels[api.LabelInstanceType]
	}
	for _, c := range plan.Commands {
		for _, r := range fxReplacements(c) {
			for _, n := range c.Nodes {
				assert.NotContains(t, r.InstanceTypeOptions, typeOf[n])
			}
		}
	}
}

func fxRow31() Input {
	c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD))
	c.node("n", "", fxDefaultType, fxZ1, fxOD, fxPods(1, "n", "100m", "100Mi")...)
	return c.input()
}

func fxCheckRow31(t *testing.T, in Input, plan *Plan) {
	require.Len(t, plan.Commands, 1)
	c := plan.Commands[0]
	assert.Equal(t, CommandReplace, c.Kind)
	assert.Equal(t, ReasonUnderutilized, c.Reason)
	assert.Equal(t, []string{"n"}, c.Nodes)
	require.NotNil(t, c.Replacement)
	assert.Equal(t, fxSmallType, c.Replacement.InstanceType)
	assert.NotContains(t, c.Replacement.InstanceTypeOptions, fxDefaultType)
	assert.InDelta(t, 0.4, c.SavingsPerHour, 1e-6)
	fxWantMoves(map[string]string{"default/n-0": c.Replacement.Name})(t, in, plan)
	fxCheckNoSameType(t, in, plan)
}

// fxOneNode: one node of size-<size> holding one small pod, in a pool of capacityType, among the
// sized types.
func fxOneNode(sizes []int, size int, capacityType string, spotToSpot bool) func() Input {
	return func() Input {
		c := newFxCluster(fxSizedTypes(sizes...), fxPool("default", capacityType))
		c.opts.SpotToSpot = spotToSpot
		c.node("n", "", fxSizeName(size), fxZ1, capacityType, fxPods(1, "n", "100m", "100Mi")...)
		return c.input()
	}
}

func fxCheckSpotToSpot(t *testing.T, _ Input, plan *Plan) {
	require.Len(t, plan.Commands, 1)
	c := plan.Commands[0]
	assert.Equal(t, CommandReplace, c.Kind)
	require.NotNil(t, c.Replacement)
	assert.Equal(t, fxSpot, c.Replacement.CapacityType)
	assert.Equal(t, fxSizeName(1), c.Replacement.InstanceType)
	cheapest := map[string]bool{}
	for _, i := range fxSizes(15) {
		cheapest[fxSizeName(i)] = true
	}
	assert.LessOrEqual(t, len(c.Replacement.InstanceTypeOptions), 15)
	for _, name := range c.Replacement.InstanceTypeOptions {
		assert.True(t, cheapest[name], "%s is not among the 15 cheapest", name)
	}
}

func fxRow34() Input {
	c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD))
	for _, name := range []string{"a", "b", "c"} {
		c.node(name, "", fxSmallType, fxZ1, fxOD, fxPod(name, "100m", "100Mi", fxLabel("app", "anti"), fxAntiAffinity("anti")))
	}
	return c.input()
}

func fxRow35() Input {
	c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD))
	types := []string{fxSmallType, fxDefaultType, fxSmallType}
	for i, zone := range fxZones {
		name := "zone-" + zone[len(zone)-1:]
		c.node(name, "", types[i], zone, fxOD, fxPod("spread-"+name, "100m", "100Mi", fxLabel("app", "spread"), fxZoneSpread("spread")))
	}
	return c.input()
}

// TestBudgets counts how many of 10 empty nodes one pass deletes under each budget.
func TestBudgets(t *testing.T) {
	tests := []struct {
		name     string
		budgets  []api.Budget
		deleting int
		want     int
	}{
		{"10% of 10 rounds to 1", []api.Budget{fxBudget("10%", "", 0)}, 0, 1},
		{"25% of 10 rounds up to 3", []api.Budget{fxBudget("25%", "", 0)}, 0, 3},
		{"5% of 10 rounds up to 1", []api.Budget{fxBudget("5%", "", 0)}, 0, 1},
		{"0% allows none", []api.Budget{fxBudget("0%", "", 0)}, 0, 0},
		{"a count", []api.Budget{fxBudget("4", "", 0)}, 0, 4},
		{"the smallest active budget wins", []api.Budget{fxBudget("50%", "", 0), fxBudget("2", "", 0)}, 0, 2},
		{"nodes already disrupting are subtracted", []api.Budget{fxBudget("3", "", 0)}, 2, 1},
		{"more disrupting than allowed is 0, not negative", []api.Budget{fxBudget("1", "", 0)}, 2, 0},
		{"an active schedule applies", []api.Budget{fxBudget("0", "0 12 * * *", time.Hour)}, 0, 0},
		{"an inactive schedule does not", []api.Budget{fxBudget("0", "0 3 * * *", time.Hour)}, 0, 10},
		{"an inactive schedule leaves the others", []api.Budget{fxBudget("0", "0 3 * * *", time.Hour), fxBudget("2", "", 0)}, 0, 2},
		{"a budget for Underutilized only leaves Empty alone",
			[]api.Budget{fxBudget("0", "", 0, api.DisruptionReasonUnderutilized)}, 0, 10},
		{"a budget for Empty applies", []api.Budget{fxBudget("1", "", 0, api.DisruptionReasonEmpty), fxBudget("100%", "", 0)}, 0, 1},
		{"a misconfigured budget allows none", []api.Budget{fxBudget("ten", "", 0)}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD, fxBudgets(tc.budgets...)))
			for _, name := range fxNames("empty", 10) {
				c.node(name, "", fxDefaultType, fxZ1, fxOD)
			}
			for _, name := range fxNames("going", tc.deleting) {
				c.node(name, "", fxDefaultType, fxZ1, fxOD).Deleting = true
			}
			plan, err := Decide(c.input())
			require.NoError(t, err)
			assert.Len(t, fxRemovedFor(plan, ReasonEmpty), tc.want)
			assert.NotContains(t, fxRemoved(plan), "going-00", "a node already deleting is not a candidate")
		})
	}
}

// fxBudgetReasonsCluster: two empty nodes and two half-used small nodes that can merge.
func fxBudgetReasonsCluster(budgets ...api.Budget) func() Input {
	return func() Input {
		c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD, fxBudgets(budgets...)))
		c.node("empty-1", "", fxSmallType, fxZ1, fxOD)
		c.node("empty-2", "", fxSmallType, fxZ1, fxOD)
		c.node("used-1", "", fxSmallType, fxZ1, fxOD, fxPods(1, "used-1", "100m", "100Mi")...)
		c.node("used-2", "", fxSmallType, fxZ1, fxOD, fxPods(2, "used-2", "100m", "100Mi")...)
		return c.input()
	}
}

func TestBudgetReasons(t *testing.T) {
	fxRunScenarios(t, []fxScenario{
		{name: "Empty budget 0 keeps empty nodes, consolidation goes on",
			build: fxBudgetReasonsCluster(fxBudget("0", "", 0, api.DisruptionReasonEmpty)),
			check: func(t *testing.T, _ Input, plan *Plan) {
				assert.Empty(t, fxRemovedFor(plan, ReasonEmpty))
				assert.Contains(t, fxRemovedFor(plan, ReasonUnderutilized), "used-1")
				assert.NotContains(t, fxRemoved(plan), "empty-1")
				assert.NotContains(t, fxRemoved(plan), "empty-2")
			}},
		{name: "Underutilized budget 0 keeps used nodes, emptiness goes on",
			build: fxBudgetReasonsCluster(fxBudget("0", "", 0, api.DisruptionReasonUnderutilized)),
			check: func(t *testing.T, _ Input, plan *Plan) {
				assert.Equal(t, []string{"empty-1", "empty-2"}, fxRemoved(plan))
				assert.Empty(t, fxRemovedFor(plan, ReasonUnderutilized))
			}},
		{name: "Drifted budget does not limit consolidation",
			build: fxBudgetReasonsCluster(fxBudget("0", "", 0, api.DisruptionReasonDrifted)),
			check: func(t *testing.T, _ Input, plan *Plan) {
				assert.Contains(t, fxRemoved(plan), "empty-1")
				assert.Contains(t, fxRemoved(plan), "empty-2")
			}},
	})
}

// fxPairWith: node a holds one pod built with opts, node b two plain pods; both small. Without a rule in
// the way a is removed (cheaper to disrupt), with a blocked b is.
func fxPairWith(opts []fxPodOpt, pdbs ...*policyv1.PodDisruptionBudget) func() Input {
	return func() Input {
		c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD))
		c.node("a", "", fxSmallType, fxZ1, fxOD, fxPod("a-0", "100m", "100Mi", append([]fxPodOpt{fxLabel("app", "a")}, opts...)...))
		c.node("b", "", fxSmallType, fxZ1, fxOD, fxPods(2, "b", "100m", "100Mi")...)
		c.pdbs = pdbs
		return c.input()
	}
}

func fxRemoves(nodes ...string) func(*testing.T, Input, *Plan) {
	return func(t *testing.T, _ Input, plan *Plan) {
		if nodes == nil {
			nodes = []string{}
		}
		assert.Equal(t, nodes, fxRemoved(plan))
	}
}

func TestDoNotDisrupt(t *testing.T) {
	dnd := func(v string) fxPodOpt { return fxAnnotate(api.AnnotationDoNotDisrupt, v) }
	terminal := func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }
	fxRunScenarios(t, []fxScenario{
		{name: "no annotation", build: fxPairWith(nil), check: fxRemoves("a")},
		{name: "pod true", build: fxPairWith([]fxPodOpt{dnd("true")}), check: fxRemoves("b")},
		{name: "pod 5m started 1m ago", build: fxPairWith([]fxPodOpt{dnd("5m"), fxStartedAgo(time.Minute)}), check: fxRemoves("b")},
		{name: "pod 5m started 10m ago", build: fxPairWith([]fxPodOpt{dnd("5m"), fxStartedAgo(10 * time.Minute)}), check: fxRemoves("a")},
		{name: "pod invalid value is ignored", build: fxPairWith([]fxPodOpt{dnd("soon")}), check: fxRemoves("a")},
		{name: "terminal pod never blocks", build: fxPairWith([]fxPodOpt{dnd("true"), terminal}), check: fxRemoves("a")},
		{name: "node true", build: func() Input {
			in := fxPairWith(nil)()
			in.Nodes[0].Node.Annotations = map[string]string{api.AnnotationDoNotDisrupt: "true"}
			return in
		}, check: func(t *testing.T, in Input, plan *Plan) {
			fxRemoves("b")(t, in, plan)
			assert.Contains(t, fxBlockedNodes(plan), "a")
		}},
	})
}

func TestPodDisruptionBudgets(t *testing.T) {
	fxRunScenarios(t, []fxScenario{
		{name: "one PDB allowing 1", build: fxPairWith(nil, fxPDB("a", "a", 1)), check: fxRemoves("a")},
		{name: "one PDB allowing 0", build: fxPairWith(nil, fxPDB("a", "a", 0)), check: fxRemoves("b")},
		{name: "a pod under two PDBs", build: fxPairWith(nil, fxPDB("a-1", "a", 5), fxPDB("a-2", "a", 5)), check: fxRemoves("b")},
		{name: "a PDB of another namespace", build: func() Input {
			pdb := fxPDB("a", "a", 0)
			pdb.Namespace = "other"
			return fxPairWith(nil, pdb)()
		}, check: fxRemoves("a")},
	})
}

// fxWindowCluster: a holds one pod, b two; their last pod events were aAgo and bAgo before fxNow,
// and the pool waits 10m.
func fxWindowCluster(aAgo, bAgo time.Duration) func() Input {
	return func() Input {
		c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD, fxConsolidateAfter(10*time.Minute)))
		c.node("a", "", fxSmallType, fxZ1, fxOD, fxPods(1, "a", "100m", "100Mi")...).LastPodEventAt = fxNow.Add(-aAgo)
		c.node("b", "", fxSmallType, fxZ1, fxOD, fxPods(2, "b", "100m", "100Mi")...).LastPodEventAt = fxNow.Add(-bAgo)
		return c.input()
	}
}

func fxEmptyNode(opts ...fxPoolOpt) func() Input {
	return func() Input {
		c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD, opts...))
		c.node("e", "", fxSmallType, fxZ1, fxOD)
		return c.input()
	}
}

func TestConsolidateAfter(t *testing.T) {
	fxRunScenarios(t, []fxScenario{
		{name: "both outside the window", build: fxWindowCluster(time.Hour, time.Hour), check: fxRemoves("a")},
		{name: "candidate inside the window", build: fxWindowCluster(5*time.Minute, time.Hour), want: []string{}},
		{name: "destination inside the window is not used", build: fxWindowCluster(time.Hour, 5*time.Minute), want: []string{}},
		{name: "empty node outside the window", build: fxEmptyNode(fxConsolidateAfter(10 * time.Minute)),
			want: []string{"delete Empty [e]"}},
		{name: "empty node inside the window (measured from initialization)", build: func() Input {
			in := fxEmptyNode(fxConsolidateAfter(10 * time.Minute))()
			in.Nodes[0].InitializedAt = fxNow.Add(-5 * time.Minute)
			return in
		}, want: []string{}},
		{name: "Never", build: fxEmptyNode(fxConsolidateNever()), want: []string{}},
	})
}

// fxBalancedPair: two size-05 nodes, n1 with a pod of n1CPU, n2 with one of 4500m that fits nowhere
// cheaper; the catalogue holds the sizes given.
func fxBalancedPair(policy api.ConsolidationPolicy, n1CPU string, sizes ...int) func() Input {
	return func() Input {
		c := newFxCluster(fxSizedTypes(sizes...), fxPool("default", fxOD, fxPolicy(policy)))
		c.node("n1", "", fxSizeName(5), fxZ1, fxOD, fxPods(1, "n1", n1CPU, "100Mi")...)
		c.node("n2", "", fxSizeName(5), fxZ1, fxOD, fxPods(1, "n2", "4500m", "100Mi")...)
		return c.input()
	}
}

// TestPolicies covers WhenEmpty and Balanced (k = 2: a move is approved when its share of the pool's
// savings is at least half its share of the pool's disruption).
func TestPolicies(t *testing.T) {
	balanced := api.ConsolidationPolicyBalanced
	fxRunScenarios(t, []fxScenario{
		{name: "WhenEmpty deletes only empty nodes", build: func() Input {
			c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD, fxPolicy(api.ConsolidationPolicyWhenEmpty)))
			c.node("a", "", fxSmallType, fxZ1, fxOD, fxPods(1, "a", "100m", "100Mi")...)
			c.node("b", "", fxSmallType, fxZ1, fxOD, fxPods(2, "b", "100m", "100Mi")...)
			c.node("e", "", fxSmallType, fxZ1, fxOD)
			return c.input()
		}, want: []string{"delete Empty [e]"}},
		// savings 0.4 of 0.8 = 0.5, disruption 2 of 4 = 0.5: score 1.
		{name: "Balanced approves a delete", build: func() Input {
			c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD, fxPolicy(balanced)))
			c.node("a", "", fxSmallType, fxZ1, fxOD, fxPods(1, "a", "100m", "100Mi")...)
			c.node("b", "", fxSmallType, fxZ1, fxOD, fxPods(1, "b", "100m", "100Mi")...)
			return c.input()
		}, check: func(t *testing.T, _ Input, plan *Plan) { assert.Len(t, fxRemoved(plan), 1) }},
		// savings 0.6 of 2.0 = 0.3, disruption 2 of 4 = 0.5: score 0.6.
		{name: "Balanced approves a replace halving the pool's share", build: fxBalancedPair(balanced, "1500m", 1, 2, 5),
			want: []string{"replace Underutilized [n1] -> size-02 on-demand"}},
		// savings 0.2 of 2.0 = 0.1, disruption 0.5: score 0.2.
		{name: "Balanced rejects a small saving", build: fxBalancedPair(balanced, "3500m", 1, 4, 5), want: []string{}},
		{name: "WhenEmptyOrUnderutilized takes the small saving",
			build: fxBalancedPair(api.ConsolidationPolicyWhenEmptyOrUnderutilized, "3500m", 1, 4, 5),
			want:  []string{"replace Underutilized [n1] -> size-04 on-demand"}},
	})
}

// fxDriftCluster: node d (one pod, the node the case makes drifted) and node ok with room for it; the
// class "default" resolves Kubernetes 1.33.2 and image img-current. edit adjusts d.
func fxDriftCluster(edit func(c *fxCluster, d *Node)) func() Input {
	return func() Input {
		c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD))
		c.classes = []*api.AKSNodeClass{fxClass("1.33.2", "img-current")}
		d := c.node("d", "", fxSmallType, fxZ1, fxOD, fxPods(1, "d", "100m", "100Mi")...)
		d.Node.Status.NodeInfo.KubeletVersion = "v1.33.2"
		fxClaim(d).Status.ImageID = "img-current"
		ok := c.node("ok", "", fxSmallType, fxZ1, fxOD, fxPods(3, "ok", "100m", "100Mi")...)
		ok.Node.Status.NodeInfo.KubeletVersion = "v1.33.2"
		fxClaim(ok).Status.ImageID = "img-current"
		for _, n := range c.nodes {
			n.NodeClaim.Annotations = map[string]string{AnnotationNodePoolHashVersion: NodePoolHashVersion,
				api.AnnotationNodePoolHash: NodePoolHash(c.pools[0])}
		}
		edit(c, d)
		return c.input()
	}
}

// fxDrifted expects one Drifted command for node d with the given detail.
func fxDrifted(detail string) func(*testing.T, Input, *Plan) {
	return func(t *testing.T, _ Input, plan *Plan) {
		require.Len(t, plan.Commands, 1, "%v", fxSummary(plan))
		c := plan.Commands[0]
		assert.Equal(t, ReasonDrifted, c.Reason)
		assert.Equal(t, detail, c.Detail)
		assert.Equal(t, []string{"d"}, c.Nodes)
		assert.Len(t, c.Moves, 1)
	}
}

func TestDrift(t *testing.T) {
	fxRunScenarios(t, []fxScenario{
		{name: "nothing drifted", build: fxDriftCluster(func(*fxCluster, *Node) {}), check: func(t *testing.T, _ Input, plan *Plan) {
			assert.Empty(t, fxRemovedFor(plan, ReasonDrifted))
		}},
		{name: "NodePool template changed", build: fxDriftCluster(func(_ *fxCluster, d *Node) {
			d.NodeClaim.Annotations[api.AnnotationNodePoolHash] = "12345"
		}), check: fxDrifted(DriftNodePool)},
		{name: "requirements no longer met", build: fxDriftCluster(func(c *fxCluster, _ *Node) {
			fxRequire(api.LabelZone, corev1.NodeSelectorOpIn, fxZ2, fxZ3)(c.pools[0])
			c.nodes[1].Node.Labels[api.LabelZone] = fxZ2
		}), check: fxDrifted(DriftRequirements)},
		{name: "instance type gone", build: fxDriftCluster(func(_ *fxCluster, d *Node) {
			d.Node.Labels[api.LabelInstanceType] = "retired-instance-type"
		}), check: fxDrifted(DriftInstanceTypeNotFound)},
		{name: "offering gone (no spot in zone 3)", build: fxDriftCluster(func(c *fxCluster, d *Node) {
			c.pools[0].Spec.Template.Spec.Requirements[0].Values = []string{fxSpot, fxOD}
			d.Node.Labels[api.LabelZone], d.Node.Labels[api.LabelCapacityType] = fxZ3, fxSpot
		}), check: fxDrifted(DriftInstanceTypeNotFound)},
		{name: "Kubernetes version changed", build: fxDriftCluster(func(_ *fxCluster, d *Node) {
			d.Node.Status.NodeInfo.KubeletVersion = "v1.32.6"
		}), check: fxDrifted(DriftKubernetesVersion)},
		{name: "image changed", build: fxDriftCluster(func(_ *fxCluster, d *Node) {
			d.NodeClaim.Status.ImageID = "img-previous"
		}), check: fxDrifted(DriftImage)},
	})
}

// TestExpiration: a node past expireAfter goes, do-not-disrupt notwithstanding.
func TestExpiration(t *testing.T) {
	build := func(expireAfter time.Duration, never bool) func() Input {
		return func() Input {
			opt := fxExpireAfter(expireAfter)
			if never {
				opt = func(np *api.NodePool) { np.Spec.Template.Spec.ExpireAfter = api.NeverDuration() }
			}
			c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD, opt, fxBudgets(fxBudget("0", "", 0))))
			c.node("old", "", fxSmallType, fxZ1, fxOD, fxPod("old-0", "100m", "100Mi", fxAnnotate(api.AnnotationDoNotDisrupt, "true")))
			c.node("other", "", fxSmallType, fxZ1, fxOD, fxPods(2, "other", "100m", "100Mi")...)
			c.nodes[1].Node.CreationTimestamp.Time = fxNow.Add(-time.Minute)
			return c.input()
		}
	}
	fxRunScenarios(t, []fxScenario{
		{name: "expired", build: build(time.Hour, false), check: func(t *testing.T, _ Input, plan *Plan) {
			require.Len(t, plan.Commands, 1, "%v", fxSummary(plan))
			assert.Equal(t, ReasonExpired, plan.Commands[0].Reason)
			assert.Equal(t, []string{"old"}, plan.Commands[0].Nodes)
		}},
		{name: "not yet", build: build(48*time.Hour, false), want: []string{}},
		{name: "Never", build: build(0, true), want: []string{}},
	})
}
