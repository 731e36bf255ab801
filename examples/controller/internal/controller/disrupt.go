package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/provisioner"
)

// disruptionLoop runs a disruption pass every DisruptionInterval, and the next one as soon as the
// nodes of a pass that executed commands are gone, as Karpenter's disruption controller requeues
// immediately after an action: the budget those nodes held is free again only then (a node being
// deleted counts against it), and waiting out a whole interval per command made a scale-down of n
// budget-sized steps take n intervals on top of their validation delays (docs/benchmarks.md,
// issue 18). When validation confirmed nothing but proposed commands of its own, that decision,
// made on the cluster as it is now, is the next pass's first one, at once. A pass that proposes
// anything waits its validation delay, so the loop never spins.
func (c *Controller) disruptionLoop(ctx context.Context) {
	var carried *consolidation.Plan
	for ctx.Err() == nil {
		executed, next, err := c.disrupt(ctx, carried)
		if err != nil && ctx.Err() == nil {
			c.log.Error("disruption pass failed", "error", err)
		}
		carried = next
		switch {
		case carried != nil:
		case len(executed) > 0 && err == nil:
			start := time.Now()
			gone := c.waitNodesGone(ctx, executed, c.cfg.DisruptionInterval)
			c.log.Debug("disruption pass: waited for its nodes to go", "gone", gone, "millis", time.Since(start).Milliseconds())
		case !sleep(ctx, c.cfg.DisruptionInterval):
			return
		}
	}
}

// waitNodesGone waits until none of the named Nodes is in the informer, at most limit; it reports
// whether they went.
func (c *Controller) waitNodesGone(ctx context.Context, nodes []string, limit time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for slices.ContainsFunc(nodes, func(name string) bool { return c.node(name) != nil }) {
		if !sleep(ctx, replacementPoll) {
			return false
		}
	}
	return true
}

// disrupt decides (or takes carried, a decision made a moment ago), waits ValidationDelay,
// validates (validate.go) and executes the commands that still hold: Karpenter's validation,
// which keeps a command from acting on a cluster that moved while it waited (pods arrived, a node
// was nominated, a budget filled up). It returns the nodes of the commands it executed and, when
// it executed none, a fresh decision if that proposes commands (next).
func (c *Controller) disrupt(ctx context.Context, carried *consolidation.Plan) (executed []string, next *consolidation.Plan, err error) {
	plan := carried
	start := time.Now()
	if plan == nil {
		s := c.takeSnapshot()
		c.updateConsolidatable(ctx, s)
		if plan, err = consolidation.Decide(c.consolidationInput(ctx, s)); err != nil {
			return nil, nil, fmt.Errorf("decide: %w", err)
		}
	}
	c.markDrifted(ctx, plan)
	if len(plan.Commands) == 0 || !sleep(ctx, c.cfg.ValidationDelay) {
		return nil, nil, nil
	}
	// The pass's timeline at debug level: where a scale-down's time goes (docs/benchmarks.md).
	c.log.Debug("disruption pass decided", "commands", len(plan.Commands), "carried", carried != nil,
		"decideMillis", (time.Since(start) - c.cfg.ValidationDelay).Milliseconds())
	confirmed, again, err := c.validate(ctx, plan)
	if err != nil {
		return nil, nil, err
	}
	if len(confirmed) == 0 && again != nil && len(again.Commands) > 0 {
		next = again
	}
	for _, cmd := range confirmed {
		executed = append(executed, cmd.Nodes...)
	}
	start = time.Now()
	err = c.executeAll(ctx, confirmed)
	c.log.Debug("disruption pass executed", "confirmed", len(confirmed), "of", len(plan.Commands),
		"executeMillis", time.Since(start).Milliseconds(), "error", err)
	return executed, next, err
}

// executeAll carries out a pass's commands side by side, as Karpenter's orchestration queue
// does: the pass decided them together (their nodes, budgets and PDB evictions do not overlap),
// and one at a time each replace waited for its replacement to boot before the next could start.
// A failed command rolls back alone; the errors are joined, each naming its command.
func (c *Controller) executeAll(ctx context.Context, cmds []consolidation.Command) error {
	errs := make([]error, len(cmds))
	var wg sync.WaitGroup
	for i, cmd := range cmds {
		wg.Go(func() {
			if err := c.execute(ctx, cmd); err != nil {
				errs[i] = fmt.Errorf("%s: %w", describe(cmd), err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// consolidationInput is the snapshot as consolidation reads it, with the controller's options.
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

func describe(cmd consolidation.Command) string {
	reason := string(cmd.Reason)
	if cmd.Detail != "" {
		reason += " (" + cmd.Detail + ")"
	}
	return fmt.Sprintf("%s %s of %s, saving $%.4f/h", cmd.Kind, reason, strings.Join(cmd.Nodes, ","), cmd.SavingsPerHour)
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
