package controller

import (
	"context"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/snapshot"
)

// reconcileClaim moves a NodeClaim along its lifecycle: launch, registration, initialization,
// and, once it is being deleted, termination.
func (c *Controller) reconcileClaim(ctx context.Context, name string) (time.Duration, error) {
	nc := c.claim(name)
	if nc == nil || nc.DeletionTimestamp != nil || snapshot.LaunchFailed(nc) {
		c.mates.forget(name)
	}
	switch {
	case nc == nil:
		return 0, nil
	case nc.DeletionTimestamp != nil:
		return c.terminateClaim(ctx, nc)
	case snapshot.LaunchFailed(nc):
		return 0, nil // being deleted by failLaunch
	case !claimLaunched(nc):
		c.startLaunch(ctx, nc)
		return 0, nil
	}
	node := c.nodeFor(nc.Status.ProviderID)
	switch {
	case node == nil:
		return c.awaitRegistration(ctx, nc)
	case !claimRegistered(nc):
		if wait := c.reserveWait(nc); wait > 0 {
			return wait, nil // a reserve node: kube-scheduler is still placing its batch elsewhere
		}
		if wait := c.batchWait(ctx, nc); wait > 0 {
			return wait, nil // its batch's other nodes are still coming
		}
		return 0, c.register(ctx, nc, node)
	case !claimInitialized(nc):
		return 0, c.initialize(ctx, nc, node)
	}
	return 0, nil
}

// awaitRegistration deletes a claim whose node never came (Karpenter's registration timeout), and
// otherwise looks again when the timeout would pass.
func (c *Controller) awaitRegistration(ctx context.Context, nc *api.NodeClaim) (time.Duration, error) {
	launched := condition(nc, api.ConditionLaunched).LastTransitionTime.Time
	left := launched.Add(c.cfg.RegistrationTimeout).Sub(c.now())
	if left > 0 {
		return left, nil
	}
	c.log.Warn("node did not register in time; deleting NodeClaim", "nodeClaim", nc.Name, "timeout", c.cfg.RegistrationTimeout)
	return 0, c.deleteClaim(ctx, nc.Name)
}

// register adopts the node: the termination finalizer, the labels and taints the kubelet could
// not set (karpenter.sh and other restricted labels; the claim's taints), the registered label,
// and finally the removal of karpenter.sh/unregistered, which lets pods onto it. A node that is
// then already initialized (Ready, no startup or ephemeral taint: a kubelet that came up before
// the claim was reconciled) is initialized in the same writes: one Node update and one NodeClaim
// status update instead of two of each.
func (c *Controller) register(ctx context.Context, nc *api.NodeClaim, node *corev1.Node) error {
	// Before the taint goes: its removal is what makes kube-scheduler try the planned pods again,
	// and a nomination written after that try would be cleared by it (NominatePolicy).
	c.nominateOnRegistration(ctx, nc, node)
	initNow, adopted := c.mates.takeAdopted(nc.Name)
	if !adopted {
		var err error
		if initNow, err = c.writeAdoption(ctx, nc, node); err != nil {
			return err
		}
	}
	if initNow {
		c.state.podEvent(node.Name, c.now()) // consolidateAfter counts from initialization
	}
	err := c.updateClaimStatus(ctx, nc.Name, func(nc *api.NodeClaim) bool {
		nc.Status.NodeName = node.Name
		changed := setCondition(nc, api.ConditionRegistered, metav1.ConditionTrue, "Registered", "", c.now())
		if initNow {
			changed = setCondition(nc, api.ConditionInitialized, metav1.ConditionTrue, "Initialized", "", c.now()) || changed
		}
		return changed
	})
	if err != nil {
		return err
	}
	c.metrics.nodesCreated.WithLabelValues(nc.Labels[api.LabelNodePool]).Inc()
	c.log.Info("registered", "nodeClaim", nc.Name, "node", node.Name, "initialized", initNow)
	c.awaitCachedClaim(ctx, nc.Name, claimRegistered)
	return nil
}

// writeAdoption writes adopt's changes to the claim's Node and reports whether the node was
// then initialized.
func (c *Controller) writeAdoption(ctx context.Context, nc *api.NodeClaim, node *corev1.Node) (bool, error) {
	initNow := false
	err := c.updateNode(ctx, node.Name, func(n *corev1.Node) bool {
		var changed bool
		changed, initNow = adopt(n, nc)
		return changed
	})
	return initNow, err
}

// adopt makes n the claim's node (register's one Node write) and reports whether that changed
// anything, so that a registration repeated on a stale claim cache writes nothing, and whether
// the node is initialized already.
func adopt(n *corev1.Node, nc *api.NodeClaim) (changed, initNow bool) {
	before := n.DeepCopy()
	addFinalizer(n, api.TerminationFinalizer)
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	maps.Copy(n.Labels, nc.Labels)
	n.Labels[api.LabelNodeRegistered] = "true"
	for _, t := range nc.Spec.Taints {
		if !slices.ContainsFunc(n.Spec.Taints, func(x corev1.Taint) bool { return x.MatchTaint(&t) }) {
			n.Spec.Taints = append(n.Spec.Taints, t)
		}
	}
	n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == api.TaintKeyUnregistered })
	n.OwnerReferences = ownerClaim(nc)
	initNow = snapshot.WaitingFor(n, nc.Spec.StartupTaints) == ""
	if initNow {
		n.Labels[api.LabelNodeInitialized] = "true"
	}
	return !equality.Semantic.DeepEqual(before, n), initNow
}

// awaitCachedClaim waits until the claim cache shows the claim gone or done, at most
// Config.OwnWriteWait: a reconcile that returns before the cache has its own write is requeued
// by the write's other events (the Node's update) and would act on the stale copy again. done
// reads the cached claim (shared: read only), and only when the informer has replaced it.
func (c *Controller) awaitCachedClaim(ctx context.Context, name string, done func(*api.NodeClaim) bool) {
	if c.cfg.OwnWriteWait <= 0 {
		return
	}
	deadline := time.Now().Add(c.cfg.OwnWriteWait)
	var looked any
	for {
		obj, ok, _ := c.inf.claims.GetStore().GetByKey(name)
		if !ok {
			return
		}
		if obj != looked {
			looked = obj
			if nc, ok := obj.(*api.NodeClaim); !ok || done(nc) {
				return
			}
		}
		if !time.Now().Before(deadline) || !sleep(ctx, ownWritePoll) {
			return
		}
	}
}

// ownWritePoll is how often awaitCachedClaim looks at the cache.
const ownWritePoll = 20 * time.Millisecond

// initialize marks the claim Initialized once the node is Ready and its startup and ephemeral
// taints are gone: only then will pods land on it, and only then may consolidation judge it.
func (c *Controller) initialize(ctx context.Context, nc *api.NodeClaim, node *corev1.Node) error {
	if snapshot.WaitingFor(node, nc.Spec.StartupTaints) != "" {
		return nil // the node's next update brings us back
	}
	err := c.updateNode(ctx, node.Name, func(n *corev1.Node) bool {
		if n.Labels[api.LabelNodeInitialized] == "true" {
			return false
		}
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[api.LabelNodeInitialized] = "true"
		return true
	})
	if err != nil {
		return err
	}
	c.state.podEvent(node.Name, c.now()) // consolidateAfter counts from initialization
	err = c.updateClaimStatus(ctx, nc.Name, func(nc *api.NodeClaim) bool {
		return setCondition(nc, api.ConditionInitialized, metav1.ConditionTrue, "Initialized", "", c.now())
	})
	if err == nil {
		c.log.Info("initialized", "nodeClaim", nc.Name, "node", node.Name)
	}
	return err
}

// ownerClaim makes the NodeClaim the Node's owner, as Karpenter does.
func ownerClaim(nc *api.NodeClaim) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: api.KarpenterVersion, Kind: api.KindNodeClaim, Name: nc.Name, UID: nc.UID}}
}
