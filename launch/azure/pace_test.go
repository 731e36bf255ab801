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

// TestPollRateSpacesPollsAcrossLaunches: 30 creates in flight, each asking
// to be polled every millisecond, send at most PollRate polls a second
// between them (plus the bucket's one second of burst), and each is still
// polled: the launcher's share of ARM's read refill is spread over the
// operations in flight. Without the bound they would send tens of thousands.
func TestPollRateSpacesPollsAcrossLaunches(t *testing.T) {
	const (
		inFlight = 30
		pollRate = 40
		window   = time.Second
	)
	f := newFixture(t, azuresim.Options{OperationTime: map[azuresim.Op]time.Duration{azuresim.OpVMPut: time.Hour}},
		func(o *azure.Options) { o.PollRate = pollRate })
	reqs := make([]*launch.Request, inFlight)
	for i := range reqs {
		reqs[i] = request(fmt.Sprintf("paced-%02d", i), candidate("Standard_D2s_v5", 2, zonal(0.1)[0]))
	}
	done := make(chan []launch.Result, 1)
	go func() { done <- launch.LaunchAll(context.Background(), f.launcher, reqs, inFlight) }()
	require.Eventually(t, func() bool { return len(f.sim.VMNames()) == inFlight }, 20*time.Second, time.Millisecond)

	before := countRequests(f.sim, ofOp(azuresim.OpOperation))
	time.Sleep(window)
	polls := countRequests(f.sim, ofOp(azuresim.OpOperation)) - before
	assert.LessOrEqual(t, polls, pollRate*2, "at most a second's rate and a second's burst")
	assert.Greater(t, polls, pollRate/2, "the operations are still polled")

	f.clock.Advance(time.Hour)
	for _, r := range <-done {
		assert.NoError(t, r.Err, r.Request.NodeClaimName)
	}
}
