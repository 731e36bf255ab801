package snapshot

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

// requiredNodeLabels are the labels a Node of a NodePool must carry to be priced and placed.
var requiredNodeLabels = []string{api.LabelInstanceType, api.LabelZone, api.LabelCapacityType}

// node derives one Node's lifecycle from it, its NodeClaim, its pool and the caller's memory.
func (t *taker) node(node *corev1.Node) Node {
	node = withoutAdvice(node)
	claim := t.claimOfNode(node.Name)
	pool := t.poolOf(node)
	if pool != nil {
		node = withResources(node, pool.InstanceTypes)
	}
	bound := t.bound[node.Name]
	pods := bound
	// Pods nominated to the node take its room (kube-scheduler keeps it for them) and keep it from
	// consolidation until they are bound: a node whose nominated pods wait looks empty otherwise.
	nominated := t.nominated[node.Name]
	if len(nominated) > 0 {
		pods = slices.Concat(bound, nominated)
	}
	n := Node{Node: consolidation.Node{Node: node, NodeClaim: claim, Pods: pods}, Registered: Registered(node, claim)}
	n.Initialized = Initialized(node, claim, pool)
	n.InitializedAt = InitializedAt(node, claim)
	n.LastPodEventAt = LastPodEventAt(t.opts.Memory.LastPodEvents[node.Name], claim, bound, n.InitializedAt)
	n.Deleting = Deleting(node, claim) || t.opts.Memory.Disrupting.Has(node.Name)
	n.Nominated = len(nominated) > 0 || t.opts.Memory.Nominated.Has(node.Name) ||
		(claim != nil && t.opts.Memory.Nominated.Has(claim.Name))
	return n
}

// poolOf returns the NodePool of a node that carries the nodepool label, checking that the pool is
// in the snapshot and that the node has the labels a pool's node must have; nil (with an issue)
// otherwise, and nil for a node no pool manages.
func (t *taker) poolOf(node *corev1.Node) *provisioner.NodePoolInput {
	name, managed := node.Labels[api.LabelNodePool]
	if !managed {
		return nil
	}
	object := "Node " + node.Name
	pool, ok := findPool(t.objects.NodePools, name)
	if !ok {
		t.issue(issue(object, "metadata.labels["+api.LabelNodePool+"]", "no NodePool %q", name))
		return nil
	}
	for _, key := range requiredNodeLabels {
		if node.Labels[key] == "" {
			t.issue(issue(object, "metadata.labels["+key+"]", "required on a node of NodePool %s", name))
			return nil
		}
	}
	return pool
}

// withResources gives a node described by its labels alone (no capacity, no allocatable) those of
// its instance type, on a copy; other nodes are returned as they are.
func withResources(node *corev1.Node, types []*instancetype.InstanceType) *corev1.Node {
	if len(node.Status.Allocatable) > 0 || len(node.Status.Capacity) > 0 {
		return node
	}
	name := node.Labels[api.LabelInstanceType]
	i := slices.IndexFunc(types, func(it *instancetype.InstanceType) bool { return it.Name == name })
	if i < 0 {
		return node
	}
	node = node.DeepCopy()
	node.Status.Capacity = types[i].Capacity.DeepCopy()
	node.Status.Allocatable = types[i].Allocatable().DeepCopy()
	return node
}

// withoutAdvice drops napkit's deletion-candidate taint (api.TaintKeyDeletionCandidate), on a copy:
// it asks kube-scheduler to prefer other nodes while consolidation waits to remove this one, and
// a plan that honoured it would change the decision it advises on (an evacuation would open a
// node rather than use a marked one). Other nodes are returned as they are.
func withoutAdvice(node *corev1.Node) *corev1.Node {
	if !hasTaint(node, api.TaintKeyDeletionCandidate) {
		return node
	}
	node = node.DeepCopy()
	node.Spec.Taints = slices.DeleteFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == api.TaintKeyDeletionCandidate })
	return node
}

// Registered reports whether the node has joined: its NodeClaim's Registered condition when the
// claim has status conditions; otherwise the absence of the karpenter.sh/unregistered taint.
func Registered(node *corev1.Node, claim *api.NodeClaim) bool {
	if hasLifecycle(claim) {
		return meta.IsStatusConditionTrue(claim.Status.Conditions, api.ConditionRegistered)
	}
	return !hasTaint(node, api.TaintKeyUnregistered)
}

// Initialized reports whether the node has finished booting: its NodeClaim's Initialized condition
// when the claim has status conditions; otherwise the node is Ready and carries none of the booting taints (the
// well-known ephemeral ones, karpenter.sh/unregistered, and the claim's or pool's startup taints).
func Initialized(node *corev1.Node, claim *api.NodeClaim, pool *provisioner.NodePoolInput) bool {
	if hasLifecycle(claim) {
		return meta.IsStatusConditionTrue(claim.Status.Conditions, api.ConditionInitialized)
	}
	return WaitingFor(node, startupTaints(claim, pool)) == ""
}

// WaitingFor says what a node still waits for before it is initialized ("node is not Ready", "taint
// K is still present"), or "" when nothing: Ready, and no booting taint (api.IsEphemeralTaint,
// karpenter.sh/unregistered, or one of startup).
func WaitingFor(node *corev1.Node, startup []corev1.Taint) string {
	if c := readyCondition(node); c == nil || c.Status != corev1.ConditionTrue {
		return "node is not Ready"
	}
	for _, t := range node.Spec.Taints {
		isStartup := slices.ContainsFunc(startup, func(s corev1.Taint) bool { return s.MatchTaint(&t) })
		if isStartup || api.IsEphemeralTaint(t.Key) || t.Key == api.TaintKeyUnregistered {
			return fmt.Sprintf("taint %s is still present", t.Key)
		}
	}
	return ""
}

// startupTaints are the claim's startup taints, else its pool's.
func startupTaints(claim *api.NodeClaim, pool *provisioner.NodePoolInput) []corev1.Taint {
	switch {
	case claim != nil:
		return claim.Spec.StartupTaints
	case pool != nil:
		return pool.NodePool.Spec.Template.Spec.StartupTaints
	}
	return nil
}

// InitializedAt is when the node became initialized: when its NodeClaim's Initialized condition
// (for a claim with status conditions), else its Ready condition, last turned true; zero when neither is true (consolidation then uses the
// node's creation time).
func InitializedAt(node *corev1.Node, claim *api.NodeClaim) time.Time {
	if hasLifecycle(claim) {
		if c := meta.FindStatusCondition(claim.Status.Conditions, api.ConditionInitialized); c != nil && c.Status == metav1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
		return time.Time{}
	}
	if c := readyCondition(node); c != nil && c.Status == corev1.ConditionTrue {
		return c.LastTransitionTime.Time
	}
	return time.Time{}
}

// LastPodEventAt is when a pod last bound to or left the node: remembered when the caller remembers
// it; zero when the NodeClaim's status.lastPodEventTime says it (consolidation reads that itself);
// otherwise the latest start (or creation) of a bound pod, when later than initialized.
func LastPodEventAt(remembered time.Time, claim *api.NodeClaim, pods []*corev1.Pod, initialized time.Time) time.Time {
	switch {
	case !remembered.IsZero():
		return remembered
	case claim != nil && !claim.Status.LastPodEventTime.IsZero():
		return time.Time{}
	}
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

// Deleting reports a node on its way out: a deletion timestamp on it or its NodeClaim, or the
// karpenter.sh/disrupted taint a disruption command puts on it.
func Deleting(node *corev1.Node, claim *api.NodeClaim) bool {
	return node.DeletionTimestamp != nil || hasTaint(node, api.TaintKeyDisrupted) || (claim != nil && claim.DeletionTimestamp != nil)
}

// hasLifecycle reports a NodeClaim whose controller writes its lifecycle conditions; a claim with
// none (one written by hand into a manifest) is described by its Node instead.
func hasLifecycle(claim *api.NodeClaim) bool { return claim != nil && len(claim.Status.Conditions) > 0 }

func readyCondition(node *corev1.Node) *corev1.NodeCondition {
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			return &node.Status.Conditions[i]
		}
	}
	return nil
}

func hasTaint(node *corev1.Node, key string) bool {
	return slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key })
}
