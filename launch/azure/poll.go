package azure

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// pollUntilDone drives a long-running operation at pace's frequency, or at
// the operation's Retry-After when it sends one. azcore's own PollUntilDone
// refuses intervals under a second, which the simulated Azure needs.
func pollUntilDone[T any](ctx context.Context, p *runtime.Poller[T], pace pacer) (T, error) {
	for !p.Done() {
		wait, err := pollOnce(ctx, p, pace)
		if err != nil {
			var zero T
			return zero, err
		}
		if p.Done() {
			break
		}
		if err := sleep(ctx, wait); err != nil {
			var zero T
			return zero, err
		}
	}
	return result(ctx, p, pace)
}

// result fetches a finished operation's result. For a PUT that is a GET of
// the resource, which ARM may refuse with 429 like a poll: the resource was
// made all the same, so the GET is tried again (azcore's Poller caches no
// such non-terminal failure).
func result[T any](ctx context.Context, p *runtime.Poller[T], pace pacer) (T, error) {
	return untilAnswered(ctx, pace.freq, func() (T, error) { return p.Result(ctx) })
}

// pollOnce polls p, in its turn among the launcher's polls, and returns how
// long to wait before the next poll. A poll ARM refused with 429 (after
// azcore's own retries) is no answer about the operation, which runs on
// whether or not anyone watches it, so it is polled again: failing there
// would fail the launch and delete a VM that is being made.
func pollOnce[T any](ctx context.Context, p *runtime.Poller[T], pace pacer) (time.Duration, error) {
	if err := pace.turn(ctx); err != nil {
		return 0, err
	}
	resp, err := untilAnswered(ctx, pace.freq, func() (*http.Response, error) { return p.Poll(ctx) })
	if err != nil {
		return 0, err
	}
	return retryAfter(resp, pace.freq), nil
}

// untilAnswered calls read until ARM answers it other than 429, waiting
// each refusal's Retry-After: a read a launch waits on (is there a VM of this
// name already?) is not answered while refused, and failing the launch on it
// would only make the claim launch again, with the same read.
func untilAnswered[T any](ctx context.Context, freq time.Duration, read func() (T, error)) (T, error) {
	for {
		v, err := read()
		wait, throttled := throttledWait(err, freq)
		if !throttled || ctx.Err() != nil {
			return v, err
		}
		if err := sleep(ctx, wait); err != nil {
			return v, err
		}
	}
}

// isThrottled reports whether err is ARM's 429.
func isThrottled(err error) bool {
	_, ok := throttledWait(err, 0)
	return ok
}

// throttledWait reports whether err is ARM's 429 and how long it asks to wait.
func throttledWait(err error, fallback time.Duration) (time.Duration, bool) {
	re, ok := errors.AsType[*azcore.ResponseError](err)
	if !ok || re.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	return retryAfter(re.RawResponse, fallback), true
}

// retryAfter reads the wait an answer asks for, else returns fallback. The
// headers are read in azcore's retry policy's order (azcore internal/shared
// RetryAfter): retry-after-ms and x-ms-retry-after-ms in milliseconds, then
// Retry-After in seconds.
func retryAfter(resp *http.Response, fallback time.Duration) time.Duration {
	if resp == nil {
		return fallback
	}
	for _, h := range []struct {
		name string
		unit time.Duration
	}{{"retry-after-ms", time.Millisecond}, {"x-ms-retry-after-ms", time.Millisecond}, {"Retry-After", time.Second}} {
		if n, err := strconv.Atoi(resp.Header.Get(h.name)); err == nil && n > 0 {
			return time.Duration(n) * h.unit
		}
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

// pollSucceeded drives an operation to its end like pollUntilDone, but skips
// the final GET of the resource when the operation succeeded: callers that
// need nothing from the result save one ARM read. A failed operation still
// goes through the poller's Result, which turns it into an *azcore.ResponseError without
// another request.
func pollSucceeded[T any](ctx context.Context, p *runtime.Poller[T], pace pacer) error {
	for !p.Done() {
		wait, err := pollOnce(ctx, p, pace)
		if err != nil {
			return err
		}
		if p.Done() {
			break
		}
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
	// Poll on a finished operation sends nothing and returns its last answer.
	if resp, err := p.Poll(ctx); err == nil && succeeded(resp) {
		return nil
	}
	_, err := p.Result(ctx)
	return err
}

// succeeded reads the terminal state of an operation status ("status") or a
// resource ("properties.provisioningState") answer.
func succeeded(resp *http.Response) bool {
	if resp == nil {
		return false
	}
	body, err := runtime.Payload(resp)
	if err != nil {
		return false
	}
	var state struct {
		Status     string `json:"status"`
		Properties struct {
			ProvisioningState string `json:"provisioningState"`
		} `json:"properties"`
	}
	if json.Unmarshal(body, &state) != nil {
		return false
	}
	return strings.EqualFold(state.Status, "Succeeded") ||
		(state.Status == "" && strings.EqualFold(state.Properties.ProvisioningState, "Succeeded"))
}
