package consolidation

import (
	"testing"

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

// TestUnderutilizedBudgetBound: the plan says when a pool's Underutilized budget allowed fewer
// nodes than it had consolidation candidates (a pass that found nothing then proves nothing).
func TestUnderutilizedBudgetBound(t *testing.T) {
	tests := []struct {
		name   string
		budget api.Budget
		want   bool
	}{
		{"every candidate allowed", fxBudget("100%", "", 0), false},
		{"one of two used nodes allowed", fxBudget("1", "", 0, api.DisruptionReasonUnderutilized), true},
		{"none allowed", fxBudget("0", "", 0, api.DisruptionReasonUnderutilized), true},
		{"only Empty limited", fxBudget("0", "", 0, api.DisruptionReasonEmpty), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := Decide(fxBudgetReasonsCluster(tt.budget)())
			require.NoError(t, err)
			assert.Equal(t, tt.want, plan.Stats.UnderutilizedBudgetBound)
		})
	}
}
