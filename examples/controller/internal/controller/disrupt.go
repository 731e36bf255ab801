package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/provisioner"
)

// disruptionLoop runs disruption passes until ctx ends. A pass that started commands is followed
// at once by the next, as Karpenter's disruption controller requeues immediately after handing a
// command to its orchestration queue (karpenter-core.md 2.1): the commands run on (start), their
// nodes marked disrupting, so the next pass counts them against the budget and never offers them
// again. When validation confirmed nothing but proposed commands of its own, that decision, made on
// the cluster as it is now, is the next pass's first one. A pass that started nothing waits
// (idleWait) until a node may become a candidate or a disrupted node is gone, at most an interval.
// After a pass that started only deletes, the next one decides ahead of them (deletesAhead), as if
// their nodes were gone. A pass that proposes anything waits its validation delay, so the loop
// never spins. The loop returns once the commands it started have ended with ctx.
func (c *Controller) disruptionLoop(ctx context.Context) {
	defer c.commands.Wait()
	var carried *consolidation.Plan
	var ahead *deletesAhead
	for ctx.Err() == nil {
		p, err := c.disrupt(ctx, carried, ahead)
		if err != nil && ctx.Err() == nil {
			c.log.Error("disruption pass failed", "error", err)
		}
		carried, ahead = p.next, nil
		if carried == nil && p.started > 0 && err == nil {
			ahead = p.ahead
		}
		if carried == nil && (p.started == 0 || err != nil) && !c.idleWait(ctx, p.wake) {
			return
		}
	}
}

// passResult is what a disruption pass leaves the loop.
type passResult struct {
	// started counts the commands the pass started.
	started int
	// ahead is what the next decision may be made ahead of: the commands started, when all of
	// them are deletes.
	ahead *deletesAhead
	// next is a fresh decision with commands, made when none of the pass's own held.
	next *consolidation.Plan
	// wake is the earliest time a node of the pass's last snapshot may become a candidate
	// (wakeAt), or zero.
	wake time.Time
}

// disrupt decides (or takes carried, a decision made a moment ago), waits ValidationDelay,
// validates (validate.go) and starts the commands that still hold: Karpenter's validation, which
// keeps a command from acting on a cluster that moved while it waited (pods arrived, a node was
// nominated, a budget filled up). A decision made ahead of deletes under way counts their budget
// as free; the validation counts it as it is.
func (c *Controller) disrupt(ctx context.Context, carried *consolidation.Plan, ahead *deletesAhead) (r passResult, err error) {
	plan := carried
	start := time.Now()
	var chain []*consolidation.Plan
	if plan == nil {
		if plan, chain, r.wake, err = c.decide(ctx, ahead); err != nil {
			return r, err
		}
	}
	c.markDrifted(ctx, plan)
	if len(plan.Commands) == 0 || !sleep(ctx, c.cfg.ValidationDelay) {
		return r, nil
	}
	// The pass's timeline at debug level: where a scale-down's time goes (docs/benchmarks.md).
	c.log.Debug("disruption pass decided", "commands", len(plan.Commands), "carried", carried != nil, "ahead", ahead != nil, "chain", len(chain),
		"decideMillis", (time.Since(start) - c.cfg.ValidationDelay).Milliseconds())
	confirmed, again, wake, err := c.validate(ctx, plan)
	r.wake = wake
	if err != nil {
		return r, err
	}
	if len(confirmed) == 0 && again != nil && len(again.Commands) > 0 {
		r.next = again
	}
	c.start(ctx, confirmed)
	r.started = len(confirmed)
	r.ahead = aheadOf(confirmed)
	c.log.Debug("disruption pass started", "confirmed", len(confirmed), "of", len(plan.Commands))
	if len(chain) > 0 && (len(confirmed) == 0 || r.ahead != nil) {
		// The chain runs also when the plan did not hold (kube-scheduler put a drained node's pods
		// on a node the plan deletes): each step is validated on the cluster alone. A fresh
		// decision carried from the validation is stale once the chain started something.
		if n, last := c.runChain(ctx, chain, r.ahead); n > 0 {
			r.started, r.ahead, r.next = r.started+n, last, nil
		}
	}
	return r, nil
}

// decide is a pass's own decision on a fresh snapshot, made ahead of the deletes under way, the
// chain of the passes after it (decideChain) and the snapshot's wakeAt.
func (c *Controller) decide(ctx context.Context, ahead *deletesAhead) (*consolidation.Plan, []*consolidation.Plan, time.Time, error) {
	changes := c.consolidated.seen()
	s := c.takeSnapshot()
	c.updateConsolidatable(ctx, s)
	wake := c.wakeAt(s)
	in := c.consolidationInput(ctx, s)
	ahead.mark(&in, c.state.isDisrupting)
	in.Options.SkipUnderutilized = ahead == nil && c.consolidated.holds(changes, s.Now)
	plan, err := consolidation.Decide(in)
	if err != nil {
		return nil, nil, wake, fmt.Errorf("decide: %w", err)
	}
	if in.Options.SkipUnderutilized {
		c.log.Debug("consolidation skipped: nothing changed since a pass that found none")
	} else if ahead == nil {
		c.consolidated.record(changes, plan, s.Now, wake, c.cfg.ConsolidatedRecheck)
	}
	c.markUnneeded(ctx, in, plan, wake)
	var chain []*consolidation.Plan
	if c.cfg.DisruptionChainSteps > 0 {
		chain = decideChain(ctx, in, plan, chainLimits{steps: c.cfg.DisruptionChainSteps, decideFor: c.cfg.ValidationDelay / 2})
	}
	return plan, chain, wake, nil
}

// consolidationInput is the snapshot as consolidation reads it, with the controller's options. The
// nodes of commands under way are marked Deleting, so consolidation counts them against the budget
// and takes the evictions their drains still have to make off the PDB allowances.
// The pass stops when ctx ends (consolidation.ErrStopped): at 2,000 nodes a Decide takes seconds,
// and a shutdown waited for it (the scale suite's "controller did not stop within 30 s").
func (c *Controller) consolidationInput(ctx context.Context, s *clusterSnapshot) consolidation.Input {
	in := s.ConsolidationInput(c.cfg.Consolidation)
	in.Cluster = c.clusterConfig()
	in.Options.Provisioner.Seed = c.cfg.Seed
	in.Options.Stop = ctx.Done()
	return in
}

// confirms reports whether again, a command of the validation pass, confirms cmd, one of the
// first pass: it does the same (kind, reason, nodes, number of replacements), and every
// replacement may launch only instance types cmd's replacement already allowed, so waiting out
// the validation delay never lets prices move a replacement to a type the decision did not
// weigh. Prices and moves may differ.
func confirms(again, cmd consolidation.Command) bool {
	if again.Kind != cmd.Kind || again.Reason != cmd.Reason || !slices.Equal(again.Nodes, cmd.Nodes) {
		return false
	}
	newer, older := replacementsOf(again), replacementsOf(cmd)
	if len(newer) != len(older) {
		return false
	}
	for i := range newer {
		allowed := sets.New(launchTypes(older[i])...)
		if !allowed.HasAll(launchTypes(newer[i])...) {
			return false
		}
	}
	return true
}

// replacementsOf lists a command's replacement NodeClaims.
func replacementsOf(cmd consolidation.Command) []provisioner.NodeClaim {
	switch {
	case len(cmd.Replacements) > 0:
		return cmd.Replacements
	case cmd.Replacement != nil:
		return []provisioner.NodeClaim{*cmd.Replacement}
	}
	return nil
}

// launchTypes are the instance types a replacement may launch as.
func launchTypes(nc provisioner.NodeClaim) []string {
	if len(nc.InstanceTypeOptions) > 0 {
		return nc.InstanceTypeOptions
	}
	return []string{nc.InstanceType}
}

// describe is a command in one line for logs and events; a replace says how many NodeClaims it
// launches, since with Options.AllowManyToMany that is not always one.
func describe(cmd consolidation.Command) string {
	reason := string(cmd.Reason)
	if cmd.Detail != "" {
		reason += " (" + cmd.Detail + ")"
	}
	by := ""
	if n := replacementCount(cmd); n > 0 {
		by = fmt.Sprintf(" by %d NodeClaim", n)
		if n > 1 {
			by += "s"
		}
	}
	return fmt.Sprintf("%s %s of %s%s, saving $%.4f/h", cmd.Kind, reason, strings.Join(cmd.Nodes, ","), by, cmd.SavingsPerHour)
}

// replacementCount is how many NodeClaims the command launches (Replacements, or the single
// Replacement of a command that lists none).
func replacementCount(cmd consolidation.Command) int {
	if n := len(cmd.Replacements); n > 0 || cmd.Replacement == nil {
		return n
	}
	return 1
}

// sleep waits d unless ctx ends first; it reports whether the wait completed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
