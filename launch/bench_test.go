package launch_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azuresim"
)

// simLatency is the simulated ARM latency of every call in the budget runs.
const simLatency = 100 * time.Millisecond

// launch100 launches 100 NodeClaims at once against an Azure that takes
// simLatency per call, and returns the wall time and the most write calls
// any node needed.
func launch100(tb testing.TB, run int) (time.Duration, int) {
	tb.Helper()
	f := newFixture(tb, azuresim.Options{Latency: simLatency}, func(o *launch.AzureOptions) {
		o.MaxConcurrency = 100
		o.PollFrequency = simLatency
	})
	reqs := make([]*launch.Request, 100)
	for i := range reqs {
		reqs[i] = request(fmt.Sprintf("bench-%d-%03d", run, i), candidate("Standard_D2s_v5", 2, zonal(0.1)...))
	}
	start := time.Now()
	results := launch.LaunchAll(context.Background(), f.launcher, reqs, len(reqs))
	wall := time.Since(start)
	for _, r := range results {
		require.NoError(tb, r.Err)
	}
	maxWrites := 0
	for _, n := range f.sim.Writes() {
		maxWrites = max(maxWrites, n)
	}
	return wall, maxWrites
}

// The budget: 100 launches in at most 1 s of wall time with 100 ms
// per ARM call, and at most 3 ARM writes per node.
func TestLaunch100Budget(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this wall-clock budget test sleeps through 100 simulated 100 ms ARM calls; CI and scripts/test.sh run it without -short")
	}
	wall, writes := launch100(t, 0)
	assert.LessOrEqual(t, writes, 3, "ARM writes per node")
	if raceEnabled {
		t.Logf("race detector on: wall time %v not held to the 1 s budget", wall)
	} else {
		assert.LessOrEqual(t, wall, time.Second, "wall time for 100 launches")
	}
	t.Logf("100 launches: %v wall, at most %d writes per node", wall, writes)
}

func BenchmarkLaunch100(b *testing.B) {
	var total time.Duration
	maxWrites := 0
	run := 0
	for b.Loop() {
		wall, writes := launch100(b, run)
		total += wall
		maxWrites = max(maxWrites, writes)
		run++
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(run), "ms/100launches")
	b.ReportMetric(float64(maxWrites), "writes/node")
}
