package controller

import (
	"context"
	"slices"
	"time"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
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

// awaitDeletes waits, after a pass that started only deletes, until their nodes are gone (each
// signals state.freed as its Node is deleted) or a tenth of the DisruptionInterval has passed,
// whichever comes first. A delete's pods go to nodes that already exist, so its node is gone in
// well under a second (0.1-0.8 s in the scale suite); the next pass decided at once still counted
// it against the budget and proposed one node fewer: a 200-pod scale-down removed its empty nodes
// one per pass, 5 s apart, where the budget allowed two (docs/benchmarks.md, issue 18). A replace
// keeps its nodes until the replacement boots, so a pass that started one does not wait.
func (c *Controller) awaitDeletes(ctx context.Context, nodes []string) {
	if len(nodes) == 0 {
		return
	}
	began := time.Now()
	t := time.NewTimer(c.cfg.DisruptionInterval / 10)
	defer t.Stop()
	for slices.ContainsFunc(nodes, c.state.isDisrupting) {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.log.Debug("disruption loop waited for deletes", "gone", false, "waitedMillis", time.Since(began).Milliseconds())
			return
		case <-c.state.freed:
		}
	}
	c.log.Debug("disruption loop waited for deletes", "gone", true, "waitedMillis", time.Since(began).Milliseconds())
}

// deletedNodes are the nodes of cmds when every one is a delete; nil otherwise.
func deletedNodes(cmds []consolidation.Command) []string {
	var out []string
	for _, cmd := range cmds {
		if cmd.Kind != consolidation.CommandDelete {
			return nil
		}
		out = append(out, cmd.Nodes...)
	}
	return out
}
