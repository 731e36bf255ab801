package azure

import (
	"context"
	"math"
	"time"

	"golang.org/x/time/rate"
)

// pacer spaces the polls of all long-running operations in flight: each
// operation waits freq between its own polls, and every poll waits its turn
// in a shared token bucket of rate polls per second. A launch holds its slot
// while its create runs, so the polls grow with the launches in flight while
// ARM refills a subscription's reads at a fixed rate; without the bucket a
// burst of hundreds of creates has most of its polls, and the launches' other
// reads, refused.
type pacer struct {
	freq    time.Duration
	limiter *rate.Limiter
}

// newPacer makes a pacer; an infinite pollRate never waits.
func newPacer(freq time.Duration, pollRate float64) pacer {
	if math.IsInf(pollRate, 1) {
		return pacer{freq: freq, limiter: rate.NewLimiter(rate.Inf, 0)}
	}
	return pacer{freq: freq, limiter: rate.NewLimiter(rate.Limit(pollRate), max(1, int(math.Ceil(pollRate))))}
}

// turn waits until the next poll may go, or ctx ends.
func (p pacer) turn(ctx context.Context) error {
	return p.limiter.Wait(ctx)
}
