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
