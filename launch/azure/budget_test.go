package azure_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// TestRequestRatesKeepUnderARMBuckets: 12 launches at once, their
// operations polled every millisecond with no poll rate (about 400 reads),
// against a simulated Azure with ARM's read bucket (250, refilled at 25 a
// second) and a write bucket of ten seconds' worth at 10 a second. With the
// default request budget no call is refused; without it the same launches
// are refused some.
func TestRequestRatesKeepUnderARMBuckets(t *testing.T) {
	limits := azuresim.RateLimits{
		Reads:  azuresim.RateLimit{Bucket: 250, RefillPerSecond: 25},
		Writes: azuresim.RateLimit{Bucket: 100, RefillPerSecond: 10},
	}
	for _, tc := range []struct {
		name          string
		rates         azure.RequestRates
		wantThrottled bool
	}{
		{name: "default budget", rates: azure.RequestRates{}},
		{name: "no budget", rates: azure.UnlimitedRequestRates(), wantThrottled: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, azuresim.Options{RateLimits: &limits, OperationPolls: 10, Clock: time.Now},
				func(o *azure.Options) { o.RequestRates, o.PollRate = tc.rates, math.Inf(1) })
			reqs := make([]*launch.Request, 12)
			for i := range reqs {
				reqs[i] = request(fmt.Sprintf("budget-%02d", i), candidate("Standard_D2s_v5", 2, zonal(0.1)[0]))
			}
			results := launch.LaunchAll(context.Background(), f.launcher, reqs, len(reqs))
			got := f.sim.RateLimited()
			if tc.wantThrottled {
				assert.Positive(t, got.Reads.Throttled+got.Writes.Throttled, "%+v", got)
				return
			}
			for _, r := range results {
				assert.NoError(t, r.Err, r.Request.NodeClaimName)
			}
			assert.Zero(t, got.Reads.Throttled, "%+v", got)
			assert.Zero(t, got.Writes.Throttled, "%+v", got)
			assert.Positive(t, got.Writes.Served)
		})
	}
}
