package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/manifest"
	"github.com/napkit/napkit/provisioner"
)

// consolidationInput builds the snapshot `napkit consolidate` decides on. notes receives what was
// read but left out (NodeClaims with neither a Node nor an instance type).
func consolidationInput(cat *catalogueFlags, set *manifest.Set, now time.Time, notes io.Writer) (*consolidation.Input, error) {
	objects, err := decodeObjects(set.Objects)
	if err != nil {
		return nil, err
	}
	in := &consolidation.Input{Now: now, PendingPods: objects.pending, DaemonSets: objects.daemonSets,
		PersistentVolumeClaims: objects.pvcs, PersistentVolumes: objects.pvs, NodeClasses: set.NodeClasses}
	if in.PodDisruptionBudgets, in.Namespaces, err = decodePolicyObjects(set.Objects); err != nil {
		return nil, err
	}
	var catalogues map[string]*catalogue
	if in.NodePools, catalogues, err = poolInputs(cat, set); err != nil {
		return nil, err
	}
	if err := checkBoundPods(objects); err != nil {
		return nil, err
	}
	claims, err := claimsByNode(set.NodeClaims, objects.nodes)
	if err != nil {
		return nil, err
	}
	for _, node := range objects.nodes {
		n, err := consolidationNode(node, objects.bound[node.Name], claims[node.Name], in.NodePools, catalogues)
		if err != nil {
			return nil, fmt.Errorf("Node %s: %w", node.Name, err)
		}
		in.Nodes = append(in.Nodes, n)
	}
	in.InFlight = inFlightClaims(set.NodeClaims, claims, notes)
	return in, nil
}

// decodePolicyObjects reads the PodDisruptionBudgets and Namespaces, leniently like the other kinds.
func decodePolicyObjects(objects []manifest.Object) ([]*policyv1.PodDisruptionBudget, []*corev1.Namespace, error) {
	var pdbs []*policyv1.PodDisruptionBudget
	var namespaces []*corev1.Namespace
	for _, obj := range objects {
		var err error
		switch obj.Kind.Kind {
		case "PodDisruptionBudget":
			err = decodeInto(obj, &pdbs)
			if err == nil && pdbs[len(pdbs)-1].Namespace == "" {
				pdbs[len(pdbs)-1].Namespace = "default"
			}
		case "Namespace":
			err = decodeInto(obj, &namespaces)
		}
		if err != nil {
			return nil, nil, objectErr(obj, err)
		}
	}
	return pdbs, namespaces, nil
}

// checkBoundPods rejects pods bound to a node the manifests do not hold: consolidation would
// otherwise silently leave them out.
func checkBoundPods(objects *clusterObjects) error {
	known := map[string]bool{}
	for _, n := range objects.nodes {
		known[n.Name] = true
	}
	var missing []string
	for name := range objects.bound {
		if !known[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	pod := objects.bound[missing[0]][0]
	return fmt.Errorf("Pod %s/%s: spec.nodeName: Node %q is not in the manifests", pod.Namespace, pod.Name, missing[0])
}

// claimsByNode matches NodeClaims to Nodes by status.nodeName, else by name.
func claimsByNode(claims []*api.NodeClaim, nodes []*corev1.Node) (map[string]*api.NodeClaim, error) {
	known := map[string]bool{}
	for _, n := range nodes {
		known[n.Name] = true
	}
	out := map[string]*api.NodeClaim{}
	for _, nc := range claims {
		name := nc.Status.NodeName
		if name == "" && known[nc.Name] {
			name = nc.Name
		}
		if name == "" || !known[name] {
			continue
		}
		if other := out[name]; other != nil {
			return nil, fmt.Errorf("NodeClaim %s: status.nodeName: Node %q already belongs to NodeClaim %s", nc.Name, name, other.Name)
		}
		out[name] = nc
	}
	return out, nil
}

// inFlightClaims turns NodeClaims without a Node into launched-but-unregistered claims, described by
// their labels; claims without an instance-type label are noted and left out.
func inFlightClaims(claims []*api.NodeClaim, matched map[string]*api.NodeClaim, notes io.Writer) []provisioner.InFlightClaim {
	used := map[*api.NodeClaim]bool{}
	for _, nc := range matched {
		used[nc] = true
	}
	var out []provisioner.InFlightClaim
	for _, nc := range claims {
		if used[nc] {
			continue
		}
		l := nc.Labels
		if l[api.LabelNodePool] == "" || l[api.LabelInstanceType] == "" {
			fmt.Fprintf(notes, "note: NodeClaim %s has no Node and no %s/%s labels; left out\n", nc.Name, api.LabelNodePool, api.LabelInstanceType)
			continue
		}
		out = append(out, provisioner.InFlightClaim{Name: nc.Name, NodePool: l[api.LabelNodePool], InstanceType: l[api.LabelInstanceType],
			Zone: l[api.LabelZone], CapacityType: l[api.LabelCapacityType], Labels: l})
	}
	return out
}

// requiredNodeLabels are the labels a node of a NodePool must carry for consolidation to price it.
var requiredNodeLabels = []string{api.LabelInstanceType, api.LabelZone, api.LabelCapacityType}

// consolidationNode describes one Node: its NodeClaim, pods, readiness and timestamps. A node of a
// NodePool must name a pool of the manifests and carry the instance-type, zone and capacity-type
// labels; its capacity and allocatable default to its instance type's.
func consolidationNode(node *corev1.Node, pods []*corev1.Pod, claim *api.NodeClaim, pools []provisioner.NodePoolInput,
	catalogues map[string]*catalogue) (consolidation.Node, error) {
	n := consolidation.Node{Node: node, NodeClaim: claim, Pods: pods}
	poolName, managed := node.Labels[api.LabelNodePool]
	var pool *provisioner.NodePoolInput
	if managed {
		var err error
		if pool, err = nodePool(node, poolName, pools); err != nil {
			return n, err
		}
		if err := knownInstanceType(node, catalogues[poolName]); err != nil {
			return n, err
		}
		fillResources(node, pool.InstanceTypes)
	}
	n.Initialized = nodeInitialized(node, pool)
	n.InitializedAt = readySince(node)
	n.Deleting = node.DeletionTimestamp != nil || hasTaint(node, api.TaintKeyDisrupted)
	if claim == nil || claim.Status.LastPodEventTime.IsZero() {
		n.LastPodEventAt = lastPodStart(pods, n.InitializedAt)
	}
	return n, nil
}

func nodePool(node *corev1.Node, poolName string, pools []provisioner.NodePoolInput) (*provisioner.NodePoolInput, error) {
	i := slices.IndexFunc(pools, func(p provisioner.NodePoolInput) bool { return p.NodePool.Name == poolName })
	if i < 0 {
		return nil, fmt.Errorf("metadata.labels[%s]: NodePool %q is not in the manifests", api.LabelNodePool, poolName)
	}
	for _, key := range requiredNodeLabels {
		if node.Labels[key] == "" {
			return nil, fmt.Errorf("metadata.labels[%s]: required on a node of NodePool %s", key, poolName)
		}
	}
	return &pools[i], nil
}

// knownInstanceType refuses a node labelled with a size the region's SKU list lacks: it could be
// neither priced nor replaced like for like, and consolidation would count it as free. A size the
// list has but the node class excludes is drift (InstanceTypeNotFound), which consolidation handles.
func knownInstanceType(node *corev1.Node, cat *catalogue) error {
	name := node.Labels[api.LabelInstanceType]
	if cat == nil || cat.Lists(name) {
		return nil
	}
	return fmt.Errorf("metadata.labels[%s]: %q is not a VM size of region %s (see napkit instance-types)", api.LabelInstanceType, name, cat.Region)
}

// fillResources gives a node described by labels alone the capacity and allocatable of its
// instance type (when the catalogue has it).
func fillResources(node *corev1.Node, types []*instancetype.InstanceType) {
	if len(node.Status.Allocatable) > 0 || len(node.Status.Capacity) > 0 {
		return
	}
	name := node.Labels[api.LabelInstanceType]
	i := slices.IndexFunc(types, func(it *instancetype.InstanceType) bool { return it.Name == name })
	if i < 0 {
		return
	}
	node.Status.Capacity = types[i].Capacity.DeepCopy()
	node.Status.Allocatable = types[i].Allocatable().DeepCopy()
}

// nodeInitialized is napkit's reading of Karpenter's Initialized: the node is Ready and no longer
// carries a well-known ephemeral taint, karpenter.sh/unregistered, or a startup taint of its pool.
func nodeInitialized(node *corev1.Node, pool *provisioner.NodePoolInput) bool {
	if readyCondition(node) == nil || readyCondition(node).Status != corev1.ConditionTrue {
		return false
	}
	for _, t := range node.Spec.Taints {
		if api.IsEphemeralTaint(t.Key) || t.Key == api.TaintKeyUnregistered || (pool != nil && isStartupTaint(pool.NodePool, t)) {
			return false
		}
	}
	return true
}

func isStartupTaint(pool *api.NodePool, t corev1.Taint) bool {
	return slices.ContainsFunc(pool.Spec.Template.Spec.StartupTaints, func(s corev1.Taint) bool {
		return s.Key == t.Key && s.Effect == t.Effect
	})
}

func readyCondition(node *corev1.Node) *corev1.NodeCondition {
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			return &node.Status.Conditions[i]
		}
	}
	return nil
}

// readySince is when the node last became Ready (zero when unknown: the library then uses the
// node's creation time).
func readySince(node *corev1.Node) time.Time {
	if c := readyCondition(node); c != nil && c.Status == corev1.ConditionTrue {
		return c.LastTransitionTime.Time
	}
	return time.Time{}
}

// lastPodStart approximates status.lastPodEventTime for a node without a NodeClaim saying it: the
// latest start (or creation) of a bound pod, when later than the node's initialization.
func lastPodStart(pods []*corev1.Pod, initialized time.Time) time.Time {
	var last time.Time
	for _, p := range pods {
		t := p.CreationTimestamp.Time
		if p.Status.StartTime != nil {
			t = p.Status.StartTime.Time
		}
		if t.After(last) {
			last = t
		}
	}
	if !last.After(initialized) {
		return time.Time{}
	}
	return last
}

func hasTaint(node *corev1.Node, key string) bool {
	return slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key })
}
