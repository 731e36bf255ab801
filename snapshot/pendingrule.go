package snapshot

import corev1 "k8s.io/api/core/v1"

// PendingRule says when an unbound pod waits for a node. Take counts pending pods by it, and a
// controller filtering pod events uses the same rule, so the two never disagree.
type PendingRule int

// The pending rules.
const (
	// PendingUnbound counts every unbound pod (Pending without the scheduler's mark): what a
	// manifest describes. It is the zero value.
	PendingUnbound PendingRule = iota
	// PendingUngated is a live cluster that does not wait for kube-scheduler (PendingLive): a pod
	// is pending as soon as it is unbound and not held at a scheduling gate, so a burst of pods is
	// planned in one batch instead of at the rate kube-scheduler marks them. The provisioner places
	// pods on existing nodes and in-flight NodeClaims first, so a pod kube-scheduler is about to
	// bind to free capacity gets no node.
	PendingUngated
	// PendingUnschedulable waits for kube-scheduler to mark the pod Unschedulable (Karpenter's rule
	// in a live cluster, so napkit does not race the scheduler).
	PendingUnschedulable
)

// Pending reports whether pod waits for a node under the rule.
func (r PendingRule) Pending(pod *corev1.Pod) bool {
	switch r {
	case PendingUngated:
		return PendingLive(pod)
	case PendingUnschedulable:
		return Pending(pod, true)
	}
	return Pending(pod, false)
}
