package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/snapshot"
)

// replacementPoll is how often a command checks whether its replacements have initialized.
const replacementPoll = 100 * time.Millisecond

// start begins the commands and returns at once: Karpenter's disruption controller hands a
// validated command to its orchestration queue and goes on to its next pass (karpenter-core.md
// 2.1, 2.14), where napkit's pass used to wait for its commands, and each replace held the loop
// for its replacement's boot (5 s each in the scale suite) while the budget had room for more. The
// nodes are marked disrupting here, before the loop's next snapshot, so that pass counts them
// against the budget and offers none of them again; a command that fails rolls back alone and
// its nodes become candidates again. The commands end with ctx.
func (c *Controller) start(ctx context.Context, cmds []consolidation.Command) {
	for _, cmd := range cmds {
		c.state.setDisrupting(cmd.Nodes, true)
		c.commands.Go(func() {
			began := time.Now()
			err := c.execute(ctx, cmd)
			// The command's timeline at debug level: where a scale-down's time goes (docs/benchmarks.md).
			c.log.Debug("disruption command done", "command", describe(cmd),
				"executeMillis", time.Since(began).Milliseconds(), "error", err)
			if err != nil && ctx.Err() == nil {
				c.log.Error("disruption command failed", "command", describe(cmd), "error", err)
			}
		})
	}
}

// execute carries out one command as Karpenter's queue does: taint the nodes so nothing new lands
// on them, launch the replacements and wait until they are initialized, then delete the
// NodeClaims, whose termination drains the nodes in the order the command lists its moves. If the
// replacements fail, the taints are rolled back and the nodes stay.
//
// The nodes stay marked disrupting after a command that succeeded, until their Node is deleted
// (forgetNode), as Karpenter's state keeps them marked for deletion: the next pass runs meanwhile
// (disruptionLoop) and its snapshot may come before the informers show the deletions, which
// would offer the same nodes again and spend a pass on a command that cannot validate.
func (c *Controller) execute(ctx context.Context, cmd consolidation.Command) (err error) {
	c.log.Info("executing disruption command", "command", describe(cmd))
	c.state.setDisrupting(cmd.Nodes, true)
	defer func() {
		if err != nil {
			c.state.setDisrupting(cmd.Nodes, false)
		}
	}()
	if err := c.taintAll(ctx, cmd.Nodes, true); err != nil {
		return err
	}
	if err := c.replace(ctx, replacements(cmd)); err != nil {
		return errors.Join(err, c.taintAll(ctx, cmd.Nodes, false))
	}
	c.state.setDrainOrder(c.drainOrders(cmd))
	for _, name := range cmd.Nodes {
		node := c.node(name)
		if node == nil {
			continue
		}
		nc := c.claimFor(node.Spec.ProviderID)
		if nc == nil {
			continue
		}
		c.claimEvent(ctx, nc.Name, corev1.EventTypeNormal, "DisruptionTerminating", describe(cmd))
		if err := c.deleteClaim(ctx, nc.Name); err != nil {
			return err
		}
	}
	c.metrics.disruptionDecisions.WithLabelValues(string(cmd.Kind), string(cmd.Reason), cmd.Detail).Inc()
	return nil
}

func replacements(cmd consolidation.Command) []provisioner.NodeClaim {
	if len(cmd.Replacements) > 0 {
		return cmd.Replacements
	}
	if cmd.Replacement != nil {
		return []provisioner.NodeClaim{*cmd.Replacement}
	}
	return nil
}

// replace creates the replacement NodeClaims and waits for all of them to initialize.
func (c *Controller) replace(ctx context.Context, planned []provisioner.NodeClaim) error {
	if len(planned) == 0 {
		return nil
	}
	names, err := c.createClaims(ctx, c.takeSnapshot(), planned, "disruption")
	if err != nil {
		return err
	}
	deadline := c.now().Add(c.cfg.ReplacementTimeout)
	seen := map[string]bool{}
	for {
		ready, err := c.replacementsReady(names, seen)
		if ready || err != nil {
			return err
		}
		if c.now().After(deadline) {
			return fmt.Errorf("replacements %v not initialized within %s", names, c.cfg.ReplacementTimeout)
		}
		if !sleep(ctx, replacementPoll) {
			return ctx.Err()
		}
	}
}

// replacementsReady reports whether every named claim is initialized; a claim that failed, is
// being deleted, or vanished after seen saw it fails the command. A claim the cache has not shown
// yet is still coming: it was created a moment ago, and the informer lags the create (under
// load, by more than the first poll). Taking that for a failure rolled the command back while
// its replacement launched, so the replacement came up empty, was deleted as empty, and the same
// command was decided again: a replace-delete cycle that kept the scale suite's scale-down from
// settling (docs/benchmarks.md).
func (c *Controller) replacementsReady(names []string, seen map[string]bool) (bool, error) {
	for _, name := range names {
		nc := c.claim(name)
		if nc == nil && !seen[name] {
			return false, nil
		}
		seen[name] = true
		switch {
		case nc == nil, nc.DeletionTimestamp != nil, snapshot.LaunchFailed(nc):
			return false, fmt.Errorf("replacement NodeClaim %s failed", name)
		case !claimInitialized(nc):
			return false, nil
		}
	}
	return true, nil
}

// taintAll adds (or, rolling back, removes) the karpenter.sh/disrupted:NoSchedule taint.
func (c *Controller) taintAll(ctx context.Context, nodes []string, on bool) error {
	var errs []error
	for _, name := range nodes {
		errs = append(errs, ignoreNotFound(c.updateNode(ctx, name, func(n *corev1.Node) bool {
			if !on && n.DeletionTimestamp != nil {
				return false // a node being deleted keeps the taint
			}
			return setTaint(n, disruptedTaint(), on)
		})))
	}
	return errors.Join(errs...)
}
