package controller

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

// snapshot is one reading of the caches that a provisioning or disruption decision works from.
// Nodes are read before pods, as Karpenter does: capacity seen is then at least what exists, and
// a pod bound in between is merely planned twice, which the next pass corrects.
type snapshot struct {
	now     time.Time
	nodes   []*corev1.Node
	claims  []*api.NodeClaim
	byID    map[string]*api.NodeClaim // NodeClaims by provider ID
	pods    map[string][]*corev1.Pod  // bound pods by node name
	pending []*corev1.Pod
	pools   []provisioner.NodePoolInput
	classes []*api.AKSNodeClass
}

func (c *Controller) takeSnapshot() *snapshot {
	s := &snapshot{now: c.now(), nodes: c.nodes(), claims: c.claims(), byID: map[string]*api.NodeClaim{},
		pods: map[string][]*corev1.Pod{}, classes: c.nodeClasses()}
	for _, nc := range s.claims {
		if nc.Status.ProviderID != "" {
			s.byID[nc.Status.ProviderID] = nc
		}
	}
	for _, pod := range c.allPods() {
		switch {
		case pod.Spec.NodeName != "":
			s.pods[pod.Spec.NodeName] = append(s.pods[pod.Spec.NodeName], pod)
		case provisionable(pod):
			s.pending = append(s.pending, pod)
		}
	}
	s.pools = c.poolInputs()
	return s
}

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

func (s *snapshot) pool(name string) *provisioner.NodePoolInput {
	i := slices.IndexFunc(s.pools, func(p provisioner.NodePoolInput) bool { return p.NodePool.Name == name })
	if i < 0 {
		return nil
	}
	return &s.pools[i]
}

// registered reports whether the node is past registration: its NodeClaim says so, or it has no
// NodeClaim (a node napkit does not manage) and no unregistered taint.
func (s *snapshot) registered(node *corev1.Node) bool {
	if nc := s.byID[node.Spec.ProviderID]; nc != nil {
		return claimRegistered(nc)
	}
	return !hasTaint(node.Spec.Taints, api.TaintKeyUnregistered)
}

func (s *snapshot) initialized(node *corev1.Node) bool {
	if nc := s.byID[node.Spec.ProviderID]; nc != nil {
		return claimInitialized(nc)
	}
	return nodeReady(node)
}

// existingNodes are the registered nodes that can still take pods, with their pods.
func (s *snapshot) existingNodes() []provisioner.ExistingNode {
	var out []provisioner.ExistingNode
	for _, node := range s.nodes {
		if node.DeletionTimestamp == nil && s.registered(node) {
			out = append(out, provisioner.ExistingNode{Node: node, Pods: s.pods[node.Name], Initialized: s.initialized(node)})
		}
	}
	return out
}

// inFlight are the NodeClaims whose node has not registered yet: their capacity is on its way, and
// counting it is what keeps the next batch from provisioning the same pods again.
func (s *snapshot) inFlight() []provisioner.InFlightClaim {
	registered := map[string]bool{}
	for _, node := range s.nodes {
		// A node without a provider ID (not napkit's) must not mark the claims not launched yet,
		// whose provider ID is empty too, as registered.
		if node.Spec.ProviderID != "" && s.registered(node) {
			registered[node.Spec.ProviderID] = true
		}
	}
	var out []provisioner.InFlightClaim
	for _, nc := range s.claims {
		if nc.DeletionTimestamp != nil || registered[nc.Status.ProviderID] || launchFailed(nc) {
			continue
		}
		if f, ok := s.inFlightClaim(nc); ok {
			out = append(out, f)
		}
	}
	return out
}

func (s *snapshot) inFlightClaim(nc *api.NodeClaim) (provisioner.InFlightClaim, bool) {
	pool := s.pool(nc.Labels[api.LabelNodePool])
	if pool == nil {
		return provisioner.InFlightClaim{}, false
	}
	typeName := nc.Labels[api.LabelInstanceType]
	if typeName == "" {
		typeName = firstInstanceType(nc)
	}
	if !slices.ContainsFunc(pool.InstanceTypes, func(it *instancetype.InstanceType) bool { return it.Name == typeName }) {
		return provisioner.InFlightClaim{}, false
	}
	return provisioner.InFlightClaim{Name: nc.Name, NodePool: pool.NodePool.Name, InstanceType: typeName,
		Zone: nc.Labels[api.LabelZone], CapacityType: nc.Labels[api.LabelCapacityType], Labels: nc.Labels}, true
}

// reschedulable are the pods of nodes being deleted, planned as if pending so that their new home
// is on its way while the drain runs (Karpenter does the same).
func (s *snapshot) reschedulable() []*corev1.Pod {
	var out []*corev1.Pod
	for _, node := range s.nodes {
		if node.DeletionTimestamp == nil {
			continue
		}
		for _, pod := range s.pods[node.Name] {
			if pod.DeletionTimestamp == nil && !terminal(pod) && !daemonPod(pod) && !mirrorPod(pod) {
				moved := pod.DeepCopy()
				moved.Spec.NodeName = ""
				out = append(out, moved)
			}
		}
	}
	return out
}

// firstInstanceType is the cheapest option of the claim's launch list.
func firstInstanceType(nc *api.NodeClaim) string {
	for _, r := range nc.Spec.Requirements {
		if r.Key == api.LabelInstanceType && len(r.Values) > 0 {
			return r.Values[0]
		}
	}
	return ""
}

func launchFailed(nc *api.NodeClaim) bool {
	c := condition(nc, api.ConditionLaunched)
	return c != nil && c.Status == "False" && c.Reason == reasonLaunchFailed
}
