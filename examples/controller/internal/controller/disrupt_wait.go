package controller

import (
	"context"
	"time"

	"github.com/napkit/napkit/api"
)

// idleWait waits after a disruption pass that started nothing, and reports false when ctx ended.
// It waits the DisruptionInterval (Karpenter's polling period) unless, sooner, wake comes (a node
// may become a candidate: its consolidateAfter or a nomination ends) or a node being disrupted is
// gone (state.freed: the budget it held is free again). Polling alone cost a 1,000-pod scale-down
// up to an interval per gap: the next command's nodes were the ones the previous command's pods
// had landed on, their consolidateAfter ended a few seconds into the interval, and the pass that
// could take them came only at its end (docs/benchmarks.md, issue 18). An idle pass waits at least
// a tenth of the interval, so a stream of pod events, each moving some node's consolidateAfter,
// cannot run passes back to back.
func (c *Controller) idleWait(ctx context.Context, wake time.Time) bool {
	d := c.cfg.DisruptionInterval
	if !wake.IsZero() {
		d = min(d, max(wake.Sub(c.now()), c.cfg.DisruptionInterval/10))
	}
	why := "interval"
	if d < c.cfg.DisruptionInterval {
		why = "candidate due"
	}
	began := time.Now()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-c.state.freed:
		why = "disrupted node gone"
	}
	// The loop's timeline at debug level: how long passes that found nothing cost (docs/benchmarks.md).
	c.log.Debug("disruption loop idle", "woke", why, "waitedMillis", time.Since(began).Milliseconds())
	return true
}

// wakeAt is the earliest time after s.Now at which a node of s that is not a candidate now may
// become one: an initialized claim's consolidateAfter ends (Karpenter's Consolidatable condition
// turns True then), or a nomination runs out. Zero when there is none. The time is a hint for
// idleWait: a pod event after s moves a node's time later, and the pass that wakes too early
// finds nothing and waits again.
func (c *Controller) wakeAt(s *clusterSnapshot) time.Time {
	next := c.state.nextNominationEnd(s.Now)
	for _, nc := range s.claims {
		pool, ok := s.Pool(nc.Labels[api.LabelNodePool])
		if !ok || nc.DeletionTimestamp != nil || !claimInitialized(nc) || c.state.isDisrupting(nc.Status.NodeName) {
			continue
		}
		at, never := consolidatableAt(pool.NodePool, nc, c.state.lastPodEventAt(nc.Status.NodeName))
		if !never && at.After(s.Now) && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	return next
}
