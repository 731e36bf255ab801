package launch

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// pollUntilDone drives a long-running operation at freq, or at the
// operation's Retry-After when it sends one. azcore's own PollUntilDone
// refuses intervals under a second, which the simulated Azure needs.
func pollUntilDone[T any](ctx context.Context, p *runtime.Poller[T], freq time.Duration) (T, error) {
	for !p.Done() {
		resp, err := p.Poll(ctx)
		if err != nil {
			var zero T
			return zero, err
		}
		if p.Done() {
			break
		}
		if err := sleep(ctx, retryAfter(resp, freq)); err != nil {
			var zero T
			return zero, err
		}
	}
	return p.Result(ctx)
}

// retryAfter reads a Retry-After in seconds, else returns fallback.
func retryAfter(resp *http.Response, fallback time.Duration) time.Duration {
	if resp == nil {
		return fallback
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return fallback
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
