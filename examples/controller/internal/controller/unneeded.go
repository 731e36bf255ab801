package controller

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
)

// markUnneeded keeps napkit's deletion-candidate taint (api.TaintKeyDeletionCandidate,
// PreferNoSchedule) on exactly the nodes consolidation.Unneeded names: the nodes consolidation
// would remove if its budgets and consolidateAfter allowed it now (Config.MarkUnneeded).
//
// Why: the default budget removes one node of ten per command, and kube-scheduler's
// LeastAllocated score sends each command's evicted pods to the emptiest nodes, which are the next
// candidates: in a 200-pod scale-down the big node's replace, first proposed 52 s before it ran,
// was refused twice because the pods of the deletes before it had landed on it (docs/benchmarks.md,
// issue 18, eighth session).
// The taint's TaintToleration score (weight 3 against LeastAllocated's 1) sends them to the nodes
// that stay, where they fit. The planners do not see it (package snapshot drops it).
//
// It runs when something may change: the pass proposes commands, a node's consolidateAfter or a
// nomination is still running (wake), or nodes are marked. It changes nothing while pods are
// pending (the provisioner is placing them, and kube-scheduler should be free to use any node), nor
// while a command of the controller's is under way: until a replace's replacement is up, its
// node's pods need room on the others in every simulation, so every node looked needed and was
// unmarked just before the drain whose pods the marks were to steer (scale suite, 200 pods). The
// decision is bounded like the chain's (half the validation delay); a failed or stopped one
// changes nothing.
//
// Off, it removes the marks an earlier run with the option on left, so turning it off leaves no
// node steered.
func (c *Controller) markUnneeded(ctx context.Context, in consolidation.Input, plan *consolidation.Plan, wake time.Time) {
	// One scan of the cache, unsorted: with the option off (the default) this is all a pass does.
	marked := slices.ContainsFunc(c.inf.nodes.GetStore().List(), func(obj any) bool {
		n, ok := obj.(*corev1.Node)
		return ok && hasTaint(n.Spec.Taints, api.TaintKeyDeletionCandidate)
	})
	switch {
	case !c.cfg.MarkUnneeded:
		if marked {
			c.setDeletionCandidates(ctx, c.nodes(), nil)
		}
		return
	case len(in.PendingPods) > 0 || c.disruptingAny(in.Nodes):
		return
	case len(plan.Commands) == 0 && wake.IsZero() && !marked:
		return
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ValidationDelay/2)
	defer cancel()
	in.Options.Stop = ctx.Done()
	names, err := consolidation.Unneeded(in)
	if err != nil {
		c.log.Debug("deletion candidates not updated", "error", err)
		return
	}
	c.setDeletionCandidates(ctx, c.nodes(), sets.New(names...))
}

// maxMarkWrites bounds the Node writes of one pass's marking: the pass waits for them, and at
// 2,000 nodes Unneeded named 946 (BenchmarkUnneeded), seconds of writes; the rest are written by
// the passes after it.
const maxMarkWrites = 100

// setDeletionCandidates adds the taint to the nodes in want that lack it and removes it from the
// others, at most maxMarkWrites of them; nodes being deleted are left as they are.
func (c *Controller) setDeletionCandidates(ctx context.Context, nodes []*corev1.Node, want sets.Set[string]) {
	var added, removed []string
	writes := 0
	for _, n := range nodes {
		has := hasTaint(n.Spec.Taints, api.TaintKeyDeletionCandidate)
		if n.DeletionTimestamp != nil || has == want.Has(n.Name) {
			continue
		}
		if writes++; writes > maxMarkWrites {
			break
		}
		err := c.updateNode(ctx, n.Name, func(n *corev1.Node) bool { return setTaint(n, api.DeletionCandidateTaint(), want.Has(n.Name)) })
		switch {
		case err != nil:
			c.log.Warn("deletion candidate taint not written", "node", n.Name, "error", err)
		case has:
			removed = append(removed, n.Name)
		default:
			added = append(added, n.Name)
		}
	}
	if len(added)+len(removed) > 0 {
		c.log.Debug("deletion candidates", "marked", added, "unmarked", removed, "candidates", want.Len())
	}
}

// disruptingAny reports whether a command of the controller's is under way on one of nodes.
func (c *Controller) disruptingAny(nodes []consolidation.Node) bool {
	return slices.ContainsFunc(nodes, func(n consolidation.Node) bool { return n.Node != nil && c.state.isDisrupting(n.Node.Name) })
}
