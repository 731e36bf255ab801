package consolidation

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// floorPass runs a pass the way Decide does, but forces the floor: Karpenter's draft replaces
// whatever consolidation found, as it does when the draft saves more.
func floorPass(t *testing.T, in Input) (*Plan, *draft) {
	t.Helper()
	p, skipped, err := startPass(&in)
	require.NoError(t, err)
	for _, method := range []func() error{p.expire, p.emptiness, p.drift} {
		require.NoError(t, method())
	}
	var order []*candidate
	for _, c := range consolidationOrder(p.cands) {
		if p.consolidatable(c) {
			order = append(order, c)
		}
	}
	floor, err := p.karpenterDraft(order)
	require.NoError(t, err)
	if floor == nil {
		return nil, nil
	}
	require.NoError(t, p.consolidate())
	p.floor = floor
	q, err := p.withFloor()
	require.NoError(t, err)
	return q.plan(skipped, 0), floor
}

// TestFloorReplacesConsolidation: when the floor is taken, the pass keeps its forceful commands
// (expiration, emptiness, drift), holds exactly one consolidation command, Karpenter's, and that
// command passes the same safety checks as any other.
func TestFloorReplacesConsolidation(t *testing.T) {
	// Only clusters where Karpenter's search finds a command have a floor to take; the others are
	// not subtests at all.
	taken := 0
	for seed := range uint64(30) {
		g := newFxGen(seed, true)
		g.lifecycle = true
		in := g.cluster()
		plan, floor := floorPass(t, in)
		if plan == nil {
			continue
		}
		taken++
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			normal, err := Decide(in)
			require.NoError(t, err)
			var consolidations []Command
			for _, c := range plan.Commands {
				if c.Reason == ReasonUnderutilized {
					consolidations = append(consolidations, c)
				}
			}
			require.Len(t, consolidations, 1)
			assert.InDelta(t, floor.savings, consolidations[0].SavingsPerHour, 1e-6)
			assert.Equal(t, len(floor.nodes), len(consolidations[0].Nodes))
			assert.Equal(t, fxRemovedFor(normal, ReasonEmpty), fxRemovedFor(plan, ReasonEmpty), "emptiness unchanged")
			assert.Equal(t, fxRemovedFor(normal, ReasonExpired), fxRemovedFor(plan, ReasonExpired), "expiration unchanged")
			assert.Equal(t, fxRemovedFor(normal, ReasonDrifted), fxRemovedFor(plan, ReasonDrifted), "drift unchanged")
			fxCheckSafe(t, in, plan)
		})
	}
	assert.Positive(t, taken, "some snapshot must exercise the floor")
}
