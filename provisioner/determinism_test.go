package provisioner

import (
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPlanIndependentOfMachineSpeed solves the same 10,000-pod input twice: once as the machine
// allows, once on one OS thread (GOMAXPROCS=1) shared with goroutines that burn CPU the whole time,
// so the solve runs several times slower. The improvement phase is bounded by a count of work, not
// by time, so the two plans must be byte-identical (SolveMillis aside, the one field that measures
// time).
func TestPlanIndependentOfMachineSpeed(t *testing.T) {
	in := Input{Pods: genericPods(10000), NodePools: benchPool(t)}
	fast := solvedJSON(t, in)

	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !stop.Load() {
				for i := range 10000 {
					x += i
				}
				runtime.Gosched()
			}
			_ = x
		}()
	}
	slow := solvedJSON(t, in)
	stop.Store(true)
	wg.Wait()

	require.True(t, bytes.Equal(fast, slow), "the plan under load differs from the plan without")
}

// solvedJSON solves in and returns the plan as JSON with the timing zeroed.
func solvedJSON(t *testing.T, in Input) []byte {
	t.Helper()
	plan := solveOrFail(t, in)
	plan.Stats.SolveMillis = 0
	out, err := json.Marshal(plan)
	require.NoError(t, err)
	return out
}
