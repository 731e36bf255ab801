package consolidation

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
)

// TestSettles runs Decide on its own result until it proposes nothing, on random clusters (with and
// without the rules that pin pods and nodes): every pass must lower the cluster's price, by at least
// the savings it announced, must never bring back a mix of node types seen before (no
// replace-then-replace-back), and the whole must settle in a bounded number of passes; without
// rules, no empty node may be left.
func TestSettles(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			fxSettle(t, newFxGen(100+seed, false).cluster(), false)
		})
		t.Run(fmt.Sprintf("seed-%d-with-rules", seed), func(t *testing.T) {
			fxSettle(t, newFxGen(200+seed, true).cluster(), true)
		})
	}
}

func fxSettle(t *testing.T, in Input, rules bool) {
	t.Helper()
	maxPasses := 3 * len(in.Nodes)
	cost := fxClusterCost(t, in)
	seen := map[string]int{fxTypeMix(in): 0}
	for pass := 1; ; pass++ {
		require.LessOrEqual(t, pass, maxPasses, "no fixed point after %d passes", maxPasses)
		plan, err := Decide(in)
		require.NoError(t, err)
		if len(plan.Commands) == 0 {
			t.Logf("settled after %d passes at $%.4f/h: %s", pass-1, cost, fxTypeMix(in))
			if !rules {
				fxAssertNoEmptyNode(t, in)
			}
			return
		}
		for _, problem := range fxCheckPlan(in, plan) {
			t.Errorf("pass %d: %s", pass, problem)
		}
		next, err := Apply(in, plan)
		require.NoError(t, err)
		nextCost := fxClusterCost(t, next)
		require.Less(t, nextCost, cost, "pass %d (%v) did not lower the price", pass, fxSummary(plan))
		assert.LessOrEqual(t, nextCost, cost-plan.Stats.SavingsPerHour+1e-6,
			"pass %d saved less than the %.4f it announced", pass, plan.Stats.SavingsPerHour)
		mix := fxTypeMix(next)
		if before, ok := seen[mix]; ok {
			t.Fatalf("pass %d went back to the node types after pass %d: %s", pass, before, mix)
		}
		seen[mix] = pass
		in, cost = next, nextCost
	}
}

// fxClusterCost sums the price of every node not being deleted.
func fxClusterCost(t *testing.T, in Input) float64 {
	t.Helper()
	total := 0.0
	for i := range in.Nodes {
		n := &in.Nodes[i]
		if n.Deleting {
			continue
		}
		price := fxNodePrice(in, n)
		require.Positive(t, price, "node %s has no priced offering (labels %v)", n.Node.Name, n.Node.Labels)
		total += price
	}
	return total
}

// fxTypeMix is the multiset of the cluster's node offerings, as a sorted string.
func fxTypeMix(in Input) string {
	var mix []string
	for _, n := range in.Nodes {
		if n.Deleting {
			continue
		}
		l := n.Node.Labels
		mix = append(mix, l[api.LabelInstanceType]+"/"+l[api.LabelZone]+"/"+l[api.LabelCapacityType])
	}
	slices.Sort(mix)
	return strings.Join(mix, " ")
}

// fxAssertNoEmptyNode: at the fixed point every node holds a pod, since the generated pool allows
// every disruption and emptiness would have removed an empty node.
func fxAssertNoEmptyNode(t *testing.T, in Input) {
	t.Helper()
	for _, n := range in.Nodes {
		empty := true
		for _, p := range n.Pods {
			empty = empty && !fxEvacuates(p)
		}
		assert.False(t, empty && !n.Deleting, "node %s is empty at the fixed point", n.Node.Name)
	}
}
