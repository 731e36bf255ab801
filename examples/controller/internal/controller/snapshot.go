package controller

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/snapshot"
)

// clusterSnapshot is one reading of the caches that a provisioning or disruption decision works
// from, derived by the library's snapshot package (the same derivation `napkit plan` and `napkit
// consolidate` use), with the controller's memory of nominations, pod events and disruptions.
type clusterSnapshot struct {
	*snapshot.Snapshot
	claims []*api.NodeClaim
}

// takeSnapshot reads nodes before pods, as Karpenter does: capacity seen is then at least what
// exists, and a pod bound in between is merely planned twice, which the next pass corrects. Pods
// count as pending as c.pending says. What does not fit (a pod on a node the
// cache has not seen yet, a claim of a deleted NodePool) is logged and left out.
func (c *Controller) takeSnapshot() *clusterSnapshot {
	now := c.now()
	objects := snapshot.Objects{Nodes: c.nodes(), NodeClaims: c.claims(), NodeClasses: c.nodeClasses()}
	objects.Pods = c.allPods()
	objects.NodePools = c.poolInputs()
	objects.PodDisruptionBudgets, objects.DaemonSets = c.pdbs(), c.daemonSets()
	s, err := snapshot.Take(objects, snapshot.Options{Now: now, PendingRule: c.pendingRule(), Memory: c.state.memory(now)})
	if err != nil { // Take fails only under Options.Strict; an empty snapshot decides nothing
		c.log.Error("snapshot", "error", err)
		s = &snapshot.Snapshot{Now: now}
	}
	for _, issue := range s.Issues {
		c.log.Debug("left out of the snapshot", "issue", issue.Error())
	}
	return &clusterSnapshot{Snapshot: s, claims: objects.NodeClaims}
}

// pendingRule is the snapshot's rule for pending pods: unbound and not gated, or with
// Config.WaitForScheduler, marked Unschedulable by kube-scheduler.
func (c *Controller) pendingRule() snapshot.PendingRule {
	if c.cfg.WaitForScheduler {
		return snapshot.PendingUnschedulable
	}
	return snapshot.PendingUngated
}

// pending reports whether pod is waiting for capacity, as the snapshot counts it.
func (c *Controller) pending(pod *corev1.Pod) bool { return c.pendingRule().Pending(pod) }

// poolInputs pairs every usable NodePool with its node class's catalogue.
func (c *Controller) poolInputs() []provisioner.NodePoolInput {
	var out []provisioner.NodePoolInput
	for _, pool := range c.nodePools() {
		cat, err := c.catalogueFor(pool)
		if err != nil {
			c.log.Warn("skipping NodePool", "nodePool", pool.Name, "error", err)
			continue
		}
		out = append(out, provisioner.NodePoolInput{NodePool: pool, InstanceTypes: cat.InstanceTypes})
	}
	return out
}
