package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/launch"
)

// drainPoll is how soon a drain waiting for pods to terminate looks again; pod deletions also wake
// it at once.
const drainPoll = 2 * time.Second

// reconcileNode terminates a Node being deleted that carries the termination finalizer, whether
// a NodeClaim deletion or a plain `kubectl delete node` started it.
func (c *Controller) reconcileNode(ctx context.Context, name string) (time.Duration, error) {
	node := c.node(name)
	if node == nil || node.DeletionTimestamp == nil || !hasFinalizer(node, api.TerminationFinalizer) {
		return 0, nil
	}
	return c.terminateNode(ctx, node)
}

// terminateNode is Karpenter's termination: delete the NodeClaim too, cordon and taint the node,
// drain it through the eviction API, delete the VM, then let the Node go.
func (c *Controller) terminateNode(ctx context.Context, node *corev1.Node) (time.Duration, error) {
	nc := c.claimFor(node.Spec.ProviderID)
	if nc != nil && nc.DeletionTimestamp == nil {
		if err := c.deleteClaim(ctx, nc.Name); err != nil {
			return 0, err
		}
	}
	gone, err := c.instanceGone(ctx, node.Spec.ProviderID)
	if err != nil {
		return 0, err
	}
	if !gone { // a node whose VM is already gone has nothing left to drain
		if err := c.cordon(ctx, node.Name); err != nil {
			return 0, err
		}
		done, err := c.drain(ctx, node)
		if err != nil || !done {
			return drainPoll, err
		}
		if err := c.deleteInstance(ctx, node.Spec.ProviderID, ""); err != nil {
			return 0, err
		}
	}
	err = c.updateNode(ctx, node.Name, func(n *corev1.Node) bool { return removeFinalizer(n, api.TerminationFinalizer) })
	if err = ignoreNotFound(err); err == nil {
		c.metrics.nodesTerminated.WithLabelValues(node.Labels[api.LabelNodePool]).Inc()
		c.log.Info("node terminated", "node", node.Name)
	}
	return 0, err
}

// terminateClaim deletes the claim's Node first (its finalizer drains it) and waits for it to go,
// then deletes the VM and releases the claim.
func (c *Controller) terminateClaim(ctx context.Context, nc *api.NodeClaim) (time.Duration, error) {
	if !hasFinalizer(nc, api.TerminationFinalizer) {
		return 0, nil
	}
	if node := c.nodeFor(nc.Status.ProviderID); node != nil {
		if node.DeletionTimestamp == nil {
			err := c.cfg.Kube.CoreV1().Nodes().Delete(ctx, node.Name, metav1.DeleteOptions{})
			return 0, ignoreNotFound(err)
		}
		return 0, nil // the Node's deletion requeues this claim
	}
	if c.state.isLaunching(nc.Name) {
		return time.Second, nil // a VM may still appear; delete it once the launch is over
	}
	if err := c.deleteInstance(ctx, nc.Status.ProviderID, nc.Name); err != nil {
		return 0, err
	}
	err := c.updateClaim(ctx, nc.Name, func(nc *api.NodeClaim) bool { return removeFinalizer(nc, api.TerminationFinalizer) })
	if err = ignoreNotFound(err); err == nil {
		c.metrics.claimsTerminated.WithLabelValues(nc.Labels[api.LabelNodePool]).Inc()
		c.log.Info("NodeClaim terminated", "nodeClaim", nc.Name)
	}
	return 0, err
}

// cordon stops new pods: unschedulable, the karpenter.sh/disrupted taint, and out of external
// load balancers.
func (c *Controller) cordon(ctx context.Context, name string) error {
	return c.updateNode(ctx, name, func(n *corev1.Node) bool {
		if n.Spec.Unschedulable && hasTaint(n.Spec.Taints, api.TaintKeyDisrupted) {
			return false
		}
		n.Spec.Unschedulable = true
		setTaint(n, disruptedTaint(), true)
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[corev1.LabelNodeExcludeBalancers] = "karpenter"
		return true
	})
}

func disruptedTaint() corev1.Taint {
	return corev1.Taint{Key: api.TaintKeyDisrupted, Effect: corev1.TaintEffectNoSchedule}
}

// instanceGone reports whether the VM behind providerID no longer exists.
func (c *Controller) instanceGone(ctx context.Context, providerID string) (bool, error) {
	if providerID == "" {
		return true, nil
	}
	_, err := c.cfg.Launcher.Get(ctx, providerID)
	switch {
	case errors.Is(err, launch.ErrNotFound), errors.Is(err, launch.ErrInvalidProviderID):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("get VM %s: %w", providerID, err)
	}
	return false, nil
}

// deleteInstance deletes the VM by provider ID or, for a claim whose launch never reported one,
// by the claim name the launcher names or tags it with.
func (c *Controller) deleteInstance(ctx context.Context, providerID, claimName string) error {
	if providerID == "" && claimName != "" {
		found, err := c.instanceOfClaim(ctx, claimName)
		if err != nil {
			return err
		}
		providerID = found
	}
	if providerID == "" {
		return nil
	}
	if err := c.cfg.Launcher.Delete(ctx, providerID); err != nil {
		return fmt.Errorf("delete VM %s: %w", providerID, err)
	}
	return nil
}

// instanceOfClaim is the provider ID of the claim's instance, "" when it has none. A launcher
// that finds it by name (launch.NodeClaimFinder, as the Azure one does) spends one or two reads;
// any other is listed in full, which at a thousand VMs is tens of pages per claim.
func (c *Controller) instanceOfClaim(ctx context.Context, claimName string) (string, error) {
	if finder, ok := c.cfg.Launcher.(launch.NodeClaimFinder); ok {
		inst, err := finder.FindByNodeClaim(ctx, claimName)
		switch {
		case errors.Is(err, launch.ErrNotFound):
			return "", nil
		case err != nil:
			return "", fmt.Errorf("find the VM of NodeClaim %s: %w", claimName, err)
		}
		return inst.ProviderID, nil
	}
	insts, err := c.cfg.Launcher.List(ctx)
	if err != nil {
		return "", fmt.Errorf("list VMs: %w", err)
	}
	for _, inst := range insts {
		if inst.NodeClaimName == claimName {
			return inst.ProviderID, nil
		}
	}
	return "", nil
}
