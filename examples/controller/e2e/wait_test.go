//go:build e2e

package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// pollInterval is how often waits look again: short against the seconds the controller takes, long
// enough not to load the API server.
const pollInterval = 250 * time.Millisecond

// errNotYet is what a condition returns when it wants another look without an explanation.
var errNotYet = errors.New("not yet")

// waitUntil polls cond until it returns nil and fails the test after timeout with cond's last
// answer, so a failure says what was still wrong ("2/5 pods bound", not just "timed out"). It
// returns how long the wait took.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func(ctx context.Context) error) time.Duration {
	t.Helper()
	began := time.Now()
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		last = cond(ctx)
		return last == nil, nil
	})
	took := time.Since(began).Round(time.Millisecond)
	if err != nil {
		t.Fatalf("waiting %s for %s: %v (last: %v)", timeout, what, err, last)
	}
	t.Logf("%s after %s", what, took)
	return took
}

// holdFor checks that cond stays nil for the whole duration: waits prove that something happens,
// this proves that something does not (a blocked drain, a provisioning limit).
func holdFor(t *testing.T, d time.Duration, what string, cond func(ctx context.Context) error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if err := cond(t.Context()); err != nil {
			t.Fatalf("%s stopped holding: %v", what, err)
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("%s: %v", what, t.Context().Err())
		case <-time.After(pollInterval):
		}
	}
	t.Logf("%s held for %s", what, d)
}
