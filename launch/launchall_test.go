package launch_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/napkit/napkit/launch"
)

// countingLauncher is a Launcher for another "cloud": it fails names
// starting with "fail" and records how many creates overlap.
type countingLauncher struct {
	mu       sync.Mutex
	inFlight int
	peak     int
}

var _ launch.Launcher = (*countingLauncher)(nil)

func (c *countingLauncher) Create(ctx context.Context, req *launch.Request) (*launch.Instance, error) {
	c.mu.Lock()
	c.inFlight++
	c.peak = max(c.peak, c.inFlight)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.inFlight--
		c.mu.Unlock()
	}()
	time.Sleep(5 * time.Millisecond)
	if req.NodeClaimName[:4] == "fail" {
		return nil, &launch.LaunchError{Reason: launch.ReasonAllocationFailure, NodeClaimName: req.NodeClaimName}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &launch.Instance{Name: "aks-" + req.NodeClaimName, NodeClaimName: req.NodeClaimName}, nil
}

func (c *countingLauncher) Delete(context.Context, string) error { return nil }

func (c *countingLauncher) Get(context.Context, string) (*launch.Instance, error) {
	return nil, launch.ErrNotFound
}

func (c *countingLauncher) List(context.Context) ([]*launch.Instance, error) { return nil, nil }

func TestLaunchAll(t *testing.T) {
	tests := []struct {
		name          string
		maxConcurrent int
		wantPeak      int
	}{
		{name: "bounded", maxConcurrent: 3, wantPeak: 3},
		{name: "one at a time", maxConcurrent: 1, wantPeak: 1},
		{name: "unbounded", maxConcurrent: 0, wantPeak: 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &countingLauncher{}
			var reqs []*launch.Request
			for _, n := range []string{"fail-0", "ok-01", "ok-02", "fail-1", "ok-03", "ok-04", "ok-05", "fail-2", "ok-06", "ok-07", "ok-08", "ok-09"} {
				reqs = append(reqs, &launch.Request{NodeClaimName: n})
			}
			results := launch.LaunchAll(context.Background(), l, reqs, tt.maxConcurrent)
			assert.Len(t, results, len(reqs))
			for i, r := range results {
				assert.Same(t, reqs[i], r.Request, "results are in request order")
				if reqs[i].NodeClaimName[:4] == "fail" {
					assert.ErrorIs(t, r.Err, launch.ErrAllocationFailed)
					assert.Nil(t, r.Instance)
				} else {
					assert.NoError(t, r.Err, "a failure elsewhere does not cancel this launch")
					assert.Equal(t, reqs[i].NodeClaimName, r.Instance.NodeClaimName)
				}
			}
			if tt.maxConcurrent > 0 {
				assert.LessOrEqual(t, l.peak, tt.wantPeak)
			}
			assert.Greater(t, l.peak, 0)
		})
	}
}

func TestLaunchAllCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	results := launch.LaunchAll(ctx, &countingLauncher{}, []*launch.Request{{NodeClaimName: "ok-1"}}, 1)
	assert.True(t, errors.Is(results[0].Err, context.Canceled))
}
