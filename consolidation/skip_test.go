package consolidation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
)

// TestSkipUnderutilized: with Options.SkipUnderutilized the pass leaves the used nodes alone and
// runs no consolidation simulation, while emptiness still removes the empty ones.
func TestSkipUnderutilized(t *testing.T) {
	in := fxBudgetReasonsCluster(fxBudget("100%", "", 0))()
	full, err := Decide(in)
	require.NoError(t, err)
	require.NotEmpty(t, fxRemovedFor(full, ReasonUnderutilized), "the fixture consolidates")

	in = fxBudgetReasonsCluster(fxBudget("100%", "", 0))()
	in.Options.SkipUnderutilized = true
	skipped, err := Decide(in)
	require.NoError(t, err)
	assert.Empty(t, fxRemovedFor(skipped, ReasonUnderutilized))
	assert.Equal(t, []string{"empty-1", "empty-2"}, fxRemovedFor(skipped, ReasonEmpty))
	assert.Less(t, skipped.Stats.Simulations, full.Stats.Simulations)
}

// fxUsedCluster: three half-used small nodes, no empty one.
func fxUsedCluster(budgets ...api.Budget) Input {
	c := newFxCluster(fxKarpenterTypes(), fxPool("default", fxOD, fxBudgets(budgets...)))
	for _, name := range []string{"used-1", "used-2", "used-3"} {
		c.node(name, "", fxSmallType, fxZ1, fxOD, fxPods(1, name, "100m", "100Mi")...)
	}
	return c.input()
}

// TestUnderutilizedBudgetBound: the plan says when a budget kept the method from weighing the
// candidates as a later pass might: none allowed, fewer than the candidates under a scheduled
// budget, or emptiness spending the budget first; one allowed without a schedule weighs every
// candidate alone.
func TestUnderutilizedBudgetBound(t *testing.T) {
	tests := []struct {
		name   string
		budget api.Budget
		want   bool
	}{
		{"every candidate allowed", fxBudget("100%", "", 0), false},
		{"one of three allowed", fxBudget("1", "", 0, api.DisruptionReasonUnderutilized), false},
		{"one of three allowed by a scheduled budget", fxBudget("1", "0 0 * * *", 24*time.Hour, api.DisruptionReasonUnderutilized), true},
		{"none allowed", fxBudget("0", "", 0, api.DisruptionReasonUnderutilized), true},
		{"only Empty limited", fxBudget("0", "", 0, api.DisruptionReasonEmpty), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := Decide(fxUsedCluster(tt.budget))
			require.NoError(t, err)
			assert.Equal(t, tt.want, plan.Stats.UnderutilizedBudgetBound)
		})
	}
	starved, err := Decide(fxBudgetReasonsCluster(fxBudget("1", "", 0))())
	require.NoError(t, err)
	require.NotEmpty(t, fxRemovedFor(starved, ReasonEmpty))
	assert.True(t, starved.Stats.UnderutilizedBudgetBound, "emptiness spent the budget first")
}
