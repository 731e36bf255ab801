package controller

import (
	"cmp"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/napkit/napkit/api"
)

// This file reads the informer caches. Objects returned are shared with the cache: copy before
// changing them.

func typed[T any](objs []any) []*T {
	out := make([]*T, 0, len(objs))
	for _, o := range objs {
		if t, ok := o.(*T); ok {
			out = append(out, t)
		}
	}
	return out
}

func (c *Controller) podsOn(node string) []*corev1.Pod {
	objs, _ := c.inf.pods.GetIndexer().ByIndex(byNodeName, node)
	return typed[corev1.Pod](objs)
}

func (c *Controller) allPods() []*corev1.Pod { return typed[corev1.Pod](c.inf.pods.GetStore().List()) }

func (c *Controller) nodes() []*corev1.Node {
	nodes := typed[corev1.Node](c.inf.nodes.GetStore().List())
	slices.SortFunc(nodes, func(a, b *corev1.Node) int { return cmp.Compare(a.Name, b.Name) })
	return nodes
}

func (c *Controller) node(name string) *corev1.Node {
	obj, ok, _ := c.inf.nodes.GetStore().GetByKey(name)
	if !ok {
		return nil
	}
	node, _ := obj.(*corev1.Node)
	return node
}

// nodeFor finds the Node that registered with providerID.
func (c *Controller) nodeFor(providerID string) *corev1.Node {
	if providerID == "" {
		return nil
	}
	objs, _ := c.inf.nodes.GetIndexer().ByIndex(byProviderID, providerID)
	if nodes := typed[corev1.Node](objs); len(nodes) > 0 {
		return nodes[0]
	}
	return nil
}

func (c *Controller) pdbs() []*policyv1.PodDisruptionBudget {
	return typed[policyv1.PodDisruptionBudget](c.inf.pdbs.GetStore().List())
}

func (c *Controller) daemonSets() []*appsv1.DaemonSet {
	return typed[appsv1.DaemonSet](c.inf.daemonSets.GetStore().List())
}

// claims are the cached NodeClaims (shared with the cache: read only), sorted by name; the
// undecodable ones are left out (claimTransform logged them).
func (c *Controller) claims() []*api.NodeClaim {
	out := typed[api.NodeClaim](c.inf.claims.GetStore().List())
	slices.SortFunc(out, func(a, b *api.NodeClaim) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// hasClaim reports whether the cache holds a NodeClaim of that name, without decoding it.
func (c *Controller) hasClaim(name string) bool {
	_, ok, _ := c.inf.claims.GetStore().GetByKey(name)
	return ok
}

// claim returns a copy of the cached NodeClaim, safe to change; nil when the cache has none (or
// only an undecodable one).
func (c *Controller) claim(name string) *api.NodeClaim {
	obj, ok, _ := c.inf.claims.GetStore().GetByKey(name)
	if !ok {
		return nil
	}
	nc, ok := obj.(*api.NodeClaim)
	if !ok {
		return nil
	}
	cp, err := copyClaim(nc)
	if err != nil {
		c.log.Warn("skipping a NodeClaim that does not copy", "nodeClaim", name, "error", err)
		return nil
	}
	return cp
}

// claimFor finds the NodeClaim whose launched VM has providerID (shared with the cache: read only).
func (c *Controller) claimFor(providerID string) *api.NodeClaim {
	if providerID == "" {
		return nil
	}
	objs, _ := c.inf.claims.GetIndexer().ByIndex(byProviderID, providerID)
	if claims := typed[api.NodeClaim](objs); len(claims) > 0 {
		return claims[0]
	}
	return nil
}

// nodePools are the pools new capacity may come from: defaulted, valid and not being deleted,
// sorted by name. An invalid pool is logged and left out, as Karpenter leaves out a pool that is
// not Ready.
func (c *Controller) nodePools() []*api.NodePool {
	var out []*api.NodePool
	for _, pool := range decodeAll[api.NodePool](c, c.inf.pools.GetStore().List()) {
		pool.Default()
		if err := pool.Validate(); err != nil {
			c.log.Warn("skipping invalid NodePool", "nodePool", pool.Name, "error", err)
			continue
		}
		if pool.DeletionTimestamp == nil {
			out = append(out, pool)
		}
	}
	slices.SortFunc(out, func(a, b *api.NodePool) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// nodeClass returns the defaulted AKSNodeClass of that name, or nil.
func (c *Controller) nodeClass(name string) *api.AKSNodeClass {
	nc := decodeKey[api.AKSNodeClass](c, c.inf.classes, name)
	if nc != nil {
		nc.Default()
	}
	return nc
}

func (c *Controller) nodeClasses() []*api.AKSNodeClass {
	out := decodeAll[api.AKSNodeClass](c, c.inf.classes.GetStore().List())
	for _, nc := range out {
		nc.Default()
	}
	slices.SortFunc(out, func(a, b *api.AKSNodeClass) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func decodeAll[T any](c *Controller, objs []any) []*T {
	out := make([]*T, 0, len(objs))
	for _, obj := range objs {
		t, err := FromUnstructured[T](obj)
		if err != nil {
			c.log.Warn("skipping undecodable object", "error", err)
			continue
		}
		out = append(out, t)
	}
	return out
}

func decodeKey[T any](c *Controller, inf cache.SharedIndexInformer, name string) *T {
	obj, ok, _ := inf.GetStore().GetByKey(name)
	if !ok {
		return nil
	}
	t, err := FromUnstructured[T](obj)
	if err != nil {
		c.log.Warn("skipping undecodable object", "name", name, "error", err)
		return nil
	}
	return t
}
