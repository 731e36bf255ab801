package controller

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/repair"
)

// repairLoop replaces unhealthy nodes every Upkeep.RepairInterval, unless repair is off (an
// empty, non-nil RepairPolicies).
func (c *Controller) repairLoop(ctx context.Context) {
	if c.cfg.Upkeep.RepairPolicies != nil && len(c.cfg.Upkeep.RepairPolicies) == 0 {
		return
	}
	wait.UntilWithContext(ctx, c.repairPass, c.cfg.Upkeep.RepairInterval)
}

// repairPass decides with package repair over the nodes napkit launched and deletes the NodeClaim
// of each node to repair; the termination finalizer drains it and the provisioner launches a node
// for the pods that become pending. Every repair, and every repair a guard or budget holds back,
// gets an event on the Node and its NodeClaim saying why.
func (c *Controller) repairPass(ctx context.Context) {
	pools := map[string]*api.NodePool{}
	for _, p := range c.nodePools() {
		pools[p.Name] = p
	}
	claimOf := map[string]*api.NodeClaim{}
	var nodes []repair.Node
	for _, node := range c.nodes() {
		nc := c.claimFor(node.Spec.ProviderID)
		if nc == nil {
			continue // not napkit's node
		}
		claimOf[node.Name] = nc
		nodes = append(nodes, repair.Node{Node: node, NodePool: pools[nc.Labels[api.LabelNodePool]],
			Deleting: node.DeletionTimestamp != nil || nc.DeletionTimestamp != nil || c.state.isDisrupting(node.Name)})
	}
	out, err := repair.Decide(repair.Input{Nodes: nodes, Policies: c.cfg.Upkeep.RepairPolicies, Now: c.now()})
	if err != nil {
		c.log.Error("repair decision failed", "error", err)
		return
	}
	for _, r := range out.Blocked {
		if c.repairNotes.changed(r.Node, r.Condition, r.NodePool) {
			c.repairEvent(ctx, r, claimOf[r.Node], corev1.EventTypeWarning, "NodeRepairBlocked")
		}
	}
	for _, r := range out.Repairs {
		nc := claimOf[r.Node]
		c.log.Info("repairing node", "node", r.Node, "nodeClaim", nc.Name, "why", r.Why)
		c.repairEvent(ctx, r, nc, corev1.EventTypeWarning, "NodeRepair")
		if err := c.deleteClaim(ctx, nc.Name); err != nil {
			c.log.Error("repair failed", "node", r.Node, "error", err)
			continue
		}
		c.metrics.disruptionDecisions.WithLabelValues("delete", "Repair", "repair").Inc()
	}
}

func (c *Controller) repairEvent(ctx context.Context, r repair.Repair, nc *api.NodeClaim, kind, reason string) {
	ref := corev1.ObjectReference{Kind: "Node", APIVersion: "v1", Name: r.Node}
	c.event(ctx, "default", ref, kind, reason, r.Why)
	if nc != nil {
		c.claimEvent(ctx, nc.Name, kind, reason, r.Why)
	}
}

// repairNotes remembers, per node, the blocked repair last reported, so a node held back pass
// after pass gets one event, not one every RepairInterval.
type repairNotes struct {
	mu   sync.Mutex
	last map[string]string
}

func (n *repairNotes) changed(node string, cond corev1.NodeConditionType, pool string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.last == nil {
		n.last = map[string]string{}
	}
	key := string(cond) + "/" + pool
	if n.last[node] == key {
		return false
	}
	n.last[node] = key
	return true
}
