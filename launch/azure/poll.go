package azure

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
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

// pollSucceeded drives an operation to its end like pollUntilDone, but skips
// the final GET of the resource when the operation succeeded: callers that
// need nothing from the result save one ARM read. A failed operation still
// goes through the poller's Result, which turns it into an *azcore.ResponseError without
// another request.
func pollSucceeded[T any](ctx context.Context, p *runtime.Poller[T], freq time.Duration) error {
	for !p.Done() {
		resp, err := p.Poll(ctx)
		if err != nil {
			return err
		}
		if p.Done() {
			break
		}
		if err := sleep(ctx, retryAfter(resp, freq)); err != nil {
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
