package controller

import (
	"context"
	"slices"
	"time"

	"github.com/napkit/napkit/consolidation"
)

// A pass that proposes deletes also decides the passes after it, ahead: step k is decided on the
// pass's snapshot with the nodes of the steps before it Departing (deletesAhead). Every step
// waits the validation delay with the first, and is then validated and started in turn, each
// once the nodes of the deletes started before it are gone, on the cluster as it is then
// (consolidation.Validate, budgets counted as they are).
//
// Why: passes were serial, each with its own validation delay, and at ten nodes the default
// budget allows one node per pass: a 200-pod scale-down took 5.1-5.5 s per node, the delay, and
// 1,000 pods needed 16-31 passes of one command each (docs/benchmarks.md, issue 18). A chain keeps
// every rule of a pass (the budget is never exceeded at any moment, every command is validated at
// least the validation delay after it was decided, on the cluster of the moment) and lets the
// validation delays overlap.
type chainLimits struct {
	// steps bounds the steps decided after the pass's own plan.
	steps int
	// decideFor bounds the time spent deciding them, a Decide under way included (it stops at
	// its next simulation): the chain is a gain only while it is cheap next to the validation
	// delay it saves, and at 2,000 nodes one Decide takes seconds.
	decideFor time.Duration
}

// DefaultDisruptionChainSteps is Config.DisruptionChainSteps' default: eight steps cover a
// scale-down of a pool of ten nodes at the default budget (one node per step) in one validation
// delay.
const DefaultDisruptionChainSteps = 8

// decideChain decides the steps after first on in, the input first was decided on: each step
// with the nodes of first and of the steps before it Departing, and the nodes their pods move to
// no candidates. It stops at a step with nothing to propose, a step that is not deletes only (a
// replace keeps its nodes until its replacement boots; it ends the chain as its last step), a
// drift or expiration command (validated by deciding again, not by simulation), a limit, or ctx.
func decideChain(ctx context.Context, in consolidation.Input, first *consolidation.Plan, limits chainLimits) []*consolidation.Plan {
	if !simulatedOnly(first.Commands) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, limits.decideFor)
	defer cancel()
	ahead := aheadOf(first.Commands)
	var steps []*consolidation.Plan
	for ahead != nil && len(steps) < limits.steps && ctx.Err() == nil {
		next := in
		next.Nodes = slices.Clone(in.Nodes)
		next.Options.Stop = ctx.Done()
		ahead.mark(&next, func(string) bool { return true })
		plan, err := consolidation.Decide(next)
		if err != nil || len(plan.Commands) == 0 || !simulatedOnly(plan.Commands) {
			break
		}
		steps = append(steps, plan)
		ahead = ahead.with(aheadOf(plan.Commands))
	}
	return steps
}

// simulatedOnly reports whether every command is one consolidation.Validate re-checks by
// simulation (Empty and Underutilized).
func simulatedOnly(cmds []consolidation.Command) bool {
	return len(cmds) > 0 && !slices.ContainsFunc(cmds, func(cmd consolidation.Command) bool {
		return cmd.Reason != consolidation.ReasonEmpty && cmd.Reason != consolidation.ReasonUnderutilized
	})
}

// runChain validates and starts the steps in order, each on the cluster as it is then: a step
// decided ahead of commands that did not hold is still a valid command if the validation says so,
// since it checks the step against the cluster alone. A step waits until the nodes of the deletes
// started before it (prev) are gone, so the budget they held is free, at most a
// DisruptionInterval; a replace started ends the chain (its nodes stay until its replacement
// boots). It returns the commands started and what the next pass may decide ahead of.
func (c *Controller) runChain(ctx context.Context, steps []*consolidation.Plan, prev *deletesAhead) (int, *deletesAhead) {
	started := 0
	for i, step := range steps {
		began := time.Now()
		if prev != nil && !c.awaitGone(ctx, prev.departing.UnsortedList(), c.cfg.DisruptionInterval) {
			break
		}
		confirmed, err := c.resimulate(ctx, c.takeSnapshot(), step.Commands)
		if err != nil {
			c.log.Error("disruption chain step failed", "step", i+1, "error", err)
			break
		}
		c.start(ctx, confirmed)
		started += len(confirmed)
		c.log.Debug("disruption chain step started", "step", i+1, "of", len(steps), "confirmed", len(confirmed),
			"proposed", len(step.Commands), "waitedMillis", time.Since(began).Milliseconds())
		if len(confirmed) > 0 {
			if prev = aheadOf(confirmed); prev == nil {
				break
			}
		}
	}
	return started, prev
}

// awaitGone waits until none of nodes is being disrupted any more (each signals state.freed as
// its Node is deleted) and reports whether they went within limit and before ctx ended.
func (c *Controller) awaitGone(ctx context.Context, nodes []string, limit time.Duration) bool {
	t := time.NewTimer(limit)
	defer t.Stop()
	for slices.ContainsFunc(nodes, c.state.isDisrupting) {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return false
		case <-c.state.freed:
		}
	}
	return true
}
