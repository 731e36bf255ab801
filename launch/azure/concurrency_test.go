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

// TestDefaultConcurrencyHoldsABurst: a create holds its slot while its VM's operation runs, so the
// default must let a burst's creates all be accepted before any finishes. 120 launches whose VM
// creates run until the simulator's clock moves (an hour of it) all have their VM PUT accepted;
// the old default, 50, accepted 50 and held the rest until those finished. Then the clock moves
// and every launch succeeds.
func TestDefaultConcurrencyHoldsABurst(t *testing.T) {
	const burst = 120
	f := newFixture(t, azuresim.Options{OperationTime: map[azuresim.Op]time.Duration{azuresim.OpVMPut: time.Hour}})
	reqs := make([]*launch.Request, burst)
	for i := range reqs {
		reqs[i] = request(fmt.Sprintf("burst-%03d", i), candidate("Standard_D2s_v5", 2, zonal(0.1)[0]))
	}
	done := make(chan []launch.Result, 1)
	go func() { done <- launch.LaunchAll(context.Background(), f.launcher, reqs, burst) }()

	require.Eventually(t, func() bool { return len(f.sim.VMNames()) == burst }, 20*time.Second, 10*time.Millisecond,
		"VM PUTs accepted while none has finished")
	f.clock.Advance(time.Hour)
	results := <-done
	for _, r := range results {
		assert.NoError(t, r.Err, r.Request.NodeClaimName)
	}
}
