package api

import corev1 "k8s.io/api/core/v1"

// IsEphemeralTaint reports the taints every booting node carries for a while and that go away on
// their own: not-ready, unreachable, network-unavailable and the cloud provider's uninitialized
// taint. A node holding one is not initialized yet; planning treats it as gone.
func IsEphemeralTaint(key string) bool {
	switch key {
	case corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable, corev1.TaintNodeNetworkUnavailable,
		"node.cloudprovider.kubernetes.io/uninitialized":
		return true
	}
	return false
}

// TaintKeyDeletionCandidate is napkit's soft taint (effect PreferNoSchedule) on a node that
// consolidation would remove were it not for its budgets and consolidateAfter
// (consolidation.Unneeded). kube-scheduler's TaintToleration score then sends new and evicted pods
// to other nodes where they fit, so the candidate is not refilled while it waits its turn; Cluster
// Autoscaler marks its deletion candidates the same way (DeletionCandidateOfClusterAutoscaler),
// and Karpenter's maintainers proposed it for consolidation candidates (kubernetes-sigs/karpenter
// #624, #651; aws/karpenter-provider-aws #4310), not merged: the taint is napkit's.
// It is advice to kube-scheduler, not a constraint: the planners read nodes without it (package
// snapshot drops it).
const TaintKeyDeletionCandidate = "napkit.io/deletion-candidate"

// DeletionCandidateTaint is the TaintKeyDeletionCandidate taint as napkit sets it.
func DeletionCandidateTaint() corev1.Taint {
	return corev1.Taint{Key: TaintKeyDeletionCandidate, Effect: corev1.TaintEffectPreferNoSchedule}
}
