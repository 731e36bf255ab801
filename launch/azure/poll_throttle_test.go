package azure_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azuresim"
)

// A poll ARM refuses with 429 says nothing about the operation, which runs on
// whether or not anyone watches it: the launcher polls again after
// Retry-After instead of failing the launch and deleting a VM that is being
// made. With hundreds of creates in flight, polls every 3 s exceed ARM's read
// refill (25/s per subscription and principal), so this is the common case
// of a large burst, not a fault.
func TestCreateKeepsPollingThrottledOperations(t *testing.T) {
	const refusals = 12 // azcore's retry policy gives up after 4 tries
	f := newFixture(t, azuresim.Options{OperationPolls: 2})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpOperation, RetryAfter: time.Millisecond, Count: refusals})

	inst, err := f.launcher.Create(context.Background(), request("polled-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.NoError(t, err)
	require.NotNil(t, inst)
	assert.Equal(t, []string{"aks-polled-1"}, f.sim.VMNames())
	assert.Empty(t, f.sim.RequestsFor(azuresim.OpVMDelete, "aks-polled-1"), "no cleanup of a VM that was being made")
	assert.Equal(t, refusals, countRequests(f.sim, throttledOf(azuresim.OpOperation)))
}

// The header-batch mode waits on each machine with GETs; a refused GET is no
// news of the machine either. The machine's create runs until the clock
// moves, and the refusals start once it was accepted.
func TestHeaderBatchKeepsPollingThrottledMachines(t *testing.T) {
	const refusals = 12
	f := newFixture(t, azuresim.Options{OperationTime: map[azuresim.Op]time.Duration{azuresim.OpMachinePut: time.Minute}},
		headerBatch(10*time.Millisecond, time.Minute))
	done := make(chan error, 1)
	go func() {
		_, err := f.launcher.Create(context.Background(), machineRequest(t, "watched", candidate("Standard_D2s_v5", 2, offering("0", launch.CapacityTypeOnDemand, 0.1))))
		done <- err
	}()
	require.Eventually(t, func() bool { return len(batchPuts(f.sim)) == 1 }, 10*time.Second, time.Millisecond)
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpMachineGet, RetryAfter: time.Millisecond, Count: refusals})
	require.Eventually(t, func() bool { return countRequests(f.sim, throttledOf(azuresim.OpMachineGet)) == refusals }, 10*time.Second, time.Millisecond)
	f.clock.Advance(time.Minute)

	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the create did not end once its machine succeeded")
	}
	assert.Equal(t, []string{"watched"}, f.sim.MachineNames())
}

// The VM create's result is a GET of the VM once its operation succeeded; ARM
// may refuse it like a poll, and the VM is made all the same, so the GET is
// tried again rather than the launch failed and the VM deleted.
func TestCreateRetriesAThrottledResultGET(t *testing.T) {
	const refusals = 12
	f := newFixture(t, azuresim.Options{OperationTime: map[azuresim.Op]time.Duration{azuresim.OpVMPut: time.Minute}})
	done := make(chan error, 1)
	go func() {
		_, err := f.launcher.Create(context.Background(), request("fetched-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
		done <- err
	}()
	require.Eventually(t, func() bool { return len(f.sim.VMNames()) == 1 }, 10*time.Second, time.Millisecond)
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpVMGet, RetryAfter: time.Millisecond, Count: refusals})
	f.clock.Advance(time.Minute)

	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the create did not end")
	}
	assert.Equal(t, []string{"aks-fetched-1"}, f.sim.VMNames())
	assert.Empty(t, f.sim.RequestsFor(azuresim.OpVMDelete, "aks-fetched-1"), "no cleanup of a VM that was made")
	gets := f.sim.RequestsFor(azuresim.OpVMGet, "aks-fetched-1")
	require.NotEmpty(t, gets)
	assert.Equal(t, http.StatusOK, gets[len(gets)-1].Status)
}

// The existing-VM check before a create is a read the launch waits on: a
// refusal is waited out, not turned into a failed launch (which would only
// bring the same check again with the claim's next launch).
func TestCreateWaitsOutAThrottledExistingVMCheck(t *testing.T) {
	const refusals = 12
	f := newFixture(t, azuresim.Options{})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpVMGet, RetryAfter: time.Millisecond, Count: refusals})
	_, err := f.launcher.Create(context.Background(), request("checked-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.NoError(t, err)
	assert.Equal(t, []string{"aks-checked-1"}, f.sim.VMNames())
	gets := f.sim.RequestsFor(azuresim.OpVMGet, "aks-checked-1")
	require.Greater(t, len(gets), refusals)
	assert.Equal(t, http.StatusNotFound, gets[refusals].Status, "the check answered once the refusals ended")
}
