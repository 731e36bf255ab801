package azure_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// startBatch launches n machines whose creates run until the clock moves a
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

// The Machine API modes follow a burst of machines with lists of the pool, one read per page,
// instead of a GET (or an operation poll) per machine per poll (ARM refills a subscription's reads
// at 25 a second; 40 machines polled every PollFrequency, here 1 ms, would be 40 reads a poll).
// With 40 machines awaited and pages of 20, no machine is read by GET and no operation polled while
// they are built (a poll round costs the list's 2 reads; a machine PUT after the last list is read
// by GET until the next shows it); once the creates are done the launches end from what a list showed, but for the last
// waiters, no more than a list's pages, which read their own machine.
func TestMachinesFollowedByList(t *testing.T) {
	const machines = 40
	for _, tt := range []struct {
		name string
		mode func(*azure.Options)
	}{
		{"header batches", headerBatch(10*time.Millisecond, time.Minute)},
		{"one machine per PUT", func(o *azure.Options) { machineMode(o); o.MaxConcurrency = 100 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, azuresim.Options{PageSize: 20, OperationTime: map[azuresim.Op]time.Duration{azuresim.OpMachinePut: time.Minute}}, tt.mode)
			done := startBatch(t, f, machines)
			// Lists that began after the last PUT show every machine.
			f.sim.ResetRecords()
			require.Eventually(t, func() bool { return countRequests(f.sim, ofOp(azuresim.OpMachineList)) >= 4 }, 10*time.Second, time.Millisecond)
			f.sim.ResetRecords()
			time.Sleep(100 * time.Millisecond)

			// A poll each would be about 4,000 reads in these 100 ms.
			assert.GreaterOrEqual(t, countRequests(f.sim, ofOp(azuresim.OpMachineList)), 2, "the machines are followed by lists")
			assert.Zero(t, countRequests(f.sim, ofOp(azuresim.OpMachineGet)), "no machine GET while %d are awaited", machines)
			assert.Zero(t, countRequests(f.sim, ofOp(azuresim.OpOperation)), "no operation poll while %d are awaited", machines)

			f.clock.Advance(time.Minute)
			awaitAll(t, done, machines)
			assert.Len(t, f.sim.MachineNames(), machines)
			assert.LessOrEqual(t, countRequests(f.sim, ofOp(azuresim.OpMachineGet)), 2, "the ends were seen in lists")
		})
	}
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
