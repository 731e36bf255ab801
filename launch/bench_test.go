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
// any node needed. The VM mode is aksscriptless (NIC, VM, billing
// extension); machine selects the AKS Machine API (one Machine PUT).
func launch100(tb testing.TB, run int, machine bool) (time.Duration, int) {
	tb.Helper()
	f := newFixture(tb, azuresim.Options{Latency: simLatency}, func(o *launch.AzureOptions) {
		o.MaxConcurrency = 100
		o.PollFrequency = simLatency
		if machine {
			machineMode(o)
		}
	})
	reqs := make([]*launch.Request, 100)
	for i := range reqs {
		name, cand := fmt.Sprintf("bench-%d-%03d", run, i), candidate("Standard_D2s_v5", 2, zonal(0.1)...)
		reqs[i] = request(name, cand)
		if machine {
			reqs[i] = machineRequest(tb, name, cand)
		}
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
	for _, tt := range []struct {
		name       string
		machine    bool
		wantWrites int
	}{{name: "aksscriptless", wantWrites: 3}, {name: "aksmachineapi", machine: true, wantWrites: 1}} {
		t.Run(tt.name, func(t *testing.T) {
			wall, writes := launch100(t, 0, tt.machine)
			assert.Equal(t, tt.wantWrites, writes, "ARM writes per node")
			if raceEnabled {
				t.Logf("race detector on: wall time %v not held to the 1 s budget", wall)
			} else {
				assert.LessOrEqual(t, wall, time.Second, "wall time for 100 launches")
			}
			t.Logf("100 launches: %v wall, at most %d writes per node", wall, writes)
		})
	}
}

func BenchmarkLaunch100(b *testing.B) { benchmarkLaunch100(b, false) }

func BenchmarkLaunch100MachineAPI(b *testing.B) { benchmarkLaunch100(b, true) }

func benchmarkLaunch100(b *testing.B, machine bool) {
	var total time.Duration
	maxWrites := 0
	run := 0
	for b.Loop() {
		wall, writes := launch100(b, run, machine)
		total += wall
		maxWrites = max(maxWrites, writes)
		run++
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(run), "ms/100launches")
	b.ReportMetric(float64(maxWrites), "writes/node")
}
