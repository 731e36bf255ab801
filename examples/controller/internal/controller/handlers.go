package controller

import (
	"errors"
	"fmt"

	"github.com/napkit/napkit/snapshot"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// addHandlers turns informer events into work: provisionable pods into batcher triggers, Node and
// NodeClaim changes into reconciles of both (they are linked by provider ID), pod churn into
// consolidateAfter bookkeeping and drain progress.
func (c *Controller) addHandlers() error {
	_, errPods := c.inf.pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onPod(nil, obj) },
		UpdateFunc: c.onPod,
		DeleteFunc: func(obj any) { c.onPodGone(obj) },
	})
	_, errNodes := c.inf.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			c.consolidated.changed()
			c.onNode(obj)
		},
		UpdateFunc: func(oldObj, obj any) {
			old, _ := oldObj.(*corev1.Node)
			if node, _ := obj.(*corev1.Node); nodeChangeMatters(old, node) {
				c.consolidated.changed()
			}
			c.onNode(obj)
		},
		DeleteFunc: c.onNodeGone,
	})
	_, errClaims := c.inf.claims.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onClaim,
		UpdateFunc: func(_, obj any) { c.onClaim(obj) },
		DeleteFunc: c.onClaim,
	})
	if err := errors.Join(errPods, errNodes, errClaims, c.addConsolidatedHandlers()); err != nil {
		return fmt.Errorf("informer handlers: %w", err)
	}
	return nil
}

func (c *Controller) onPod(oldObj, obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	if c.pending(pod) {
		c.batcher.Trigger(string(pod.UID))
	}
	old, _ := oldObj.(*corev1.Pod)
	if pod.Spec.NodeName == "" {
		return
	}
	bound := old == nil || old.Spec.NodeName != pod.Spec.NodeName
	finished := old != nil && !snapshot.Terminal(old) && snapshot.Terminal(pod)
	if bound || finished {
		c.state.podEvent(pod.Spec.NodeName, c.now())
		c.consolidated.changed()
	}
	if pod.DeletionTimestamp != nil {
		c.nodeQ.Add(pod.Spec.NodeName) // a draining node may be done
	}
}

func (c *Controller) onPodGone(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	c.state.forgetPod(pod.UID)
	c.consolidated.changed()
	if pod.Spec.NodeName != "" {
		c.state.podEvent(pod.Spec.NodeName, c.now())
		c.nodeQ.Add(pod.Spec.NodeName)
	}
}

func (c *Controller) onNode(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	node, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	c.nodeQ.Add(node.Name)
	if nc := c.claimFor(node.Spec.ProviderID); nc != nil {
		c.claimQ.Add(nc.Name)
	}
}

func (c *Controller) onNodeGone(obj any) {
	c.consolidated.changed()
	c.onNode(obj)
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	if node, ok := obj.(*corev1.Node); ok {
		c.state.forgetNode(node.Name)
	}
}

func (c *Controller) onClaim(obj any) {
	c.consolidated.changed()
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	name := cachedClaimName(obj)
	if name == "" {
		return
	}
	c.claimQ.Add(name)
	if id := cachedClaimProviderID(obj); id != "" {
		if node := c.nodeFor(id); node != nil {
			c.nodeQ.Add(node.Name)
		}
	}
}
