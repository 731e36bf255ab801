package snapshot

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/provisioner"
)

// Objects are the Kubernetes objects one snapshot is taken from. Take reads them and never modifies
// them.
type Objects struct {
	Nodes []*corev1.Node
	// Pods are every pod: bound ones (spec.nodeName set) and unbound ones.
	Pods       []*corev1.Pod
	NodeClaims []*api.NodeClaim
	// NodePools are the pools, each with the instance types of its node class's catalogue.
	NodePools              []provisioner.NodePoolInput
	NodeClasses            []*api.AKSNodeClass
	PodDisruptionBudgets   []*policyv1.PodDisruptionBudget
	DaemonSets             []*appsv1.DaemonSet
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	PersistentVolumes      []*corev1.PersistentVolume
	Namespaces             []*corev1.Namespace
}

// Memory is what a controller knows between passes that the objects do not hold (yet). A reader of
// manifests leaves it empty.
type Memory struct {
	// LastPodEvents is, per Node name, when a pod last bound to or left the node.
	LastPodEvents map[string]time.Time
	// Nominated names the Nodes and NodeClaims the provisioner recently planned pending pods onto.
	Nominated sets.Set[string]
	// Disrupting names the Nodes a disruption command is acting on.
	Disrupting sets.Set[string]
}

// Options configure Take.
type Options struct {
	// Now is when the snapshot is taken; consolidation measures its durations against it.
	Now time.Time
	// PendingRule says which unbound pods are pending; the zero value, PendingUnbound, counts
	// every one, as a manifest describes them.
	PendingRule PendingRule
	// Strict makes the first issue an error: for manifests, where an inconsistency is a mistake.
	Strict bool
	// Memory is the caller's knowledge beyond the objects.
	Memory Memory
}

// Node is one Node of the snapshot: what consolidation reads about it (n.Node.Node is the
// *corev1.Node), and whether it has registered.
type Node struct {
	consolidation.Node
	// Registered is false until the node has joined (see the package documentation).
	Registered bool
}
