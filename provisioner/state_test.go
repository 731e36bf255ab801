package provisioner

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// runPlan is a run's plan as JSON, without the wall-clock field.
func runPlan(t *testing.T, e *engine) []byte {
	t.Helper()
	plan := e.render(e.run())
	plan.Stats.SolveMillis = 0
	out, err := json.Marshal(plan)
	require.NoError(t, err)
	return out
}

// TestRunsShareNoState runs the baseline over a problem the main strategy has already run on and
// over a freshly compiled one: the plans are identical, so runs share the compiled problem and
// nothing of each other's state. The evacuation inputs include a NodePool limit the main run's
// claims use up differently from the baseline's: before the launch lists moved into the state,
// the baseline reused lists computed under the main run's usage (one claim lost a type the
// baseline's own usage allows).
func TestRunsShareNoState(t *testing.T) {
	inputs := map[string]Input{}
	for i := range 60 {
		inputs[fmt.Sprint("property-", i)] = gen{rand.New(rand.NewPCG(uint64(i), 7))}.input()
	}
	g := gen{rand.New(rand.NewPCG(76, 11))}
	cluster := g.cluster()
	sim, err := NewSimulator(cluster)
	require.NoError(t, err)
	for j := range 6 {
		req := g.question(cluster)
		in, err := sim.evacuationInput(req)
		if err != nil {
			continue
		}
		if _, err := Solve(in); err == nil { // without new NodeClaims, in-flight claims lose their pools
			inputs[fmt.Sprint("evacuation-76-", j)] = in
		}
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			opts := in.Options.withDefaults()
			shared, err := compile(&in, opts, false)
			require.NoError(t, err)
			runPlan(t, shared.newEngine(false))
			fresh, err := compile(&in, opts, false)
			require.NoError(t, err)
			require.JSONEq(t, string(runPlan(t, fresh.newEngine(true))), string(runPlan(t, shared.newEngine(true))))
		})
	}
}
