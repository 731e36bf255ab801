package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/provisioner"
)

// disruptionLoop runs a disruption pass every DisruptionInterval.
func (c *Controller) disruptionLoop(ctx context.Context) {
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		if err := c.disrupt(ctx); err != nil && ctx.Err() == nil {
			c.log.Error("disruption pass failed", "error", err)
		}
	}, c.cfg.DisruptionInterval)
}

// disrupt decides, waits ValidationDelay, decides again, and executes the commands both passes
// agree on: Karpenter's validation, which keeps a command from acting on a cluster that moved
// while it waited (pods arrived, a node was nominated, a budget filled up).
func (c *Controller) disrupt(ctx context.Context) error {
	s := c.takeSnapshot()
	c.updateConsolidatable(ctx, s)
	plan, err := consolidation.Decide(c.consolidationInput(s))
	if err != nil {
		return fmt.Errorf("decide: %w", err)
	}
	c.markDrifted(ctx, plan)
	if len(plan.Commands) == 0 {
		return nil
	}
	if !sleep(ctx, c.cfg.ValidationDelay) {
		return nil
	}
	again, err := consolidation.Decide(c.consolidationInput(c.takeSnapshot()))
	if err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	for _, cmd := range plan.Commands {
		if !slices.ContainsFunc(again.Commands, func(x consolidation.Command) bool { return confirms(x, cmd) }) {
			c.log.Info("command no longer valid", "command", describe(cmd))
			continue
		}
		if err := c.execute(ctx, cmd); err != nil {
			return fmt.Errorf("%s: %w", describe(cmd), err)
		}
	}
	return nil
}

// consolidationInput is the snapshot as consolidation reads it, with the controller's options.
func (c *Controller) consolidationInput(s *clusterSnapshot) consolidation.Input {
	in := s.ConsolidationInput(c.cfg.Consolidation)
	in.Cluster = c.clusterConfig()
	in.Options.Provisioner.Seed = c.cfg.Seed
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
