package api_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

func TestIsEphemeralTaint(t *testing.T) {
	for key, want := range map[string]bool{
		corev1.TaintNodeNotReady:                         true,
		corev1.TaintNodeUnreachable:                      true,
		corev1.TaintNodeNetworkUnavailable:               true,
		"node.cloudprovider.kubernetes.io/uninitialized": true,
		api.TaintKeyUnregistered:                         false, // Karpenter's own, removed at registration
		api.TaintKeyDisrupted:                            false,
		"node.cilium.io/agent-not-ready":                 false, // a startup taint, declared by the pool
	} {
		assert.Equal(t, want, api.IsEphemeralTaint(key), key)
	}
}
