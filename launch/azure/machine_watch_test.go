package azure_test

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

// startBatch launches n machines in header batches whose creates run until the clock moves a
// minute, and returns the channel their results arrive on once every batch PUT has gone out.
func startBatch(t *testing.T, f *fixture, n int) <-chan error {
	t.Helper()
	done := make(chan error, n)
	cand := candidate("Standard_D2s_v5", 2, offering("0", launch.CapacityTypeOnDemand, 0.1))
	for i := range n {
		go func() {
			_, err := f.launcher.Create(context.Background(), machineRequest(t, fmt.Sprintf("watched-%02d", i), cand))
			done <- err
		}()
	}
	require.Eventually(t, func() bool { return len(f.sim.MachineNames()) == n }, 10*time.Second, time.Millisecond)
	return done
}

// awaitAll waits for n launch results and requires each to be a success.
func awaitAll(t *testing.T, done <-chan error, n int) {
	t.Helper()
	for range n {
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("a create did not end once its machine succeeded")
		}
	}
}

// The header-batch mode follows a burst of machines with lists of the pool, one read per page,
// instead of a GET per machine per poll (ARM refills a subscription's reads at 25 a second; 40
// machines polled every PollFrequency, here 1 ms, would be 40 GETs a poll). With 40 machines
// awaited and pages of 20, no machine is read by GET while they are built (a poll round costs
// the list's 2 reads); once the creates are done the launches end from what a list showed, but for the
// last waiters, no more than a list's pages, which read their own machine.
func TestHeaderBatchPollsByList(t *testing.T) {
	const machines = 40
	f := newFixture(t, azuresim.Options{PageSize: 20, OperationTime: map[azuresim.Op]time.Duration{azuresim.OpMachinePut: time.Minute}},
		headerBatch(10*time.Millisecond, time.Minute))
	done := startBatch(t, f, machines)
	require.Eventually(t, func() bool { return countRequests(f.sim, ofOp(azuresim.OpMachineList)) >= 2 }, 10*time.Second, time.Millisecond)
	f.sim.ResetRecords()
	time.Sleep(100 * time.Millisecond)

	lists := countRequests(f.sim, ofOp(azuresim.OpMachineList))
	assert.Zero(t, countRequests(f.sim, ofOp(azuresim.OpMachineGet)), "no machine GET while %d are awaited", machines)
	assert.GreaterOrEqual(t, lists, 2, "the machines are followed by lists")

	f.clock.Advance(time.Minute)
	awaitAll(t, done, machines)
	assert.Len(t, f.sim.MachineNames(), machines)
	// The last waiters, once no more than a list's pages, read their own machine.
	assert.LessOrEqual(t, countRequests(f.sim, ofOp(azuresim.OpMachineGet)), 2, "the ends were seen in lists")
}

// A list ARM refuses with 429 is tried again after Retry-After, as a refused poll is; the
// machines' launches neither fail nor fall back to a GET each.
func TestHeaderBatchListWaitsOutThrottling(t *testing.T) {
	const machines, refusals = 10, 12
	f := newFixture(t, azuresim.Options{PageSize: 5, OperationTime: map[azuresim.Op]time.Duration{azuresim.OpMachinePut: time.Minute}},
		headerBatch(10*time.Millisecond, time.Minute))
	done := startBatch(t, f, machines)
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpMachineList, RetryAfter: time.Millisecond, Count: refusals})
	require.Eventually(t, func() bool { return countRequests(f.sim, throttledOf(azuresim.OpMachineList)) == refusals }, 10*time.Second, time.Millisecond)
	f.sim.ResetRecords()
	f.clock.Advance(time.Minute)
	awaitAll(t, done, machines)
	assert.LessOrEqual(t, countRequests(f.sim, ofOp(azuresim.OpMachineGet)), 2, "only the last waiters read their own machine")
	assert.Empty(t, f.sim.RequestsFor(azuresim.OpMachineDelete, ""), "no launch failed")
}
