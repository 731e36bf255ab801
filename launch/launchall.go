package launch

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// Result is the outcome of one launch in LaunchAll: Instance on success,
// else Err.
type Result struct {
	Request  *Request
	Instance *Instance
	Err      error
}

// LaunchAll creates every request through l, at most maxConcurrent at once
// (no bound when maxConcurrent <= 0), and returns one Result per request in
// request order. Launches are independent: a failure never cancels the
// others, so the errgroup's error is unused.
func LaunchAll(ctx context.Context, l Launcher, requests []*Request, maxConcurrent int) []Result {
	results := make([]Result, len(requests))
	var g errgroup.Group
	if maxConcurrent > 0 {
		g.SetLimit(maxConcurrent)
	}
	for i, req := range requests {
		g.Go(func() error {
			inst, err := l.Create(ctx, req)
			results[i] = Result{Request: req, Instance: inst, Err: err}
			return nil
		})
	}
	_ = g.Wait()
	return results
}
