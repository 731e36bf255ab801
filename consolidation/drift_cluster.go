package consolidation

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// ClusterConfig is the cluster-level configuration nodes are built with but no NodePool or
// AKSNodeClass holds: when it changes, existing nodes drift (the Azure provider's
// KubeletIdentityDrift, and its ClusterConfigDrift for what a managed-cluster PUT changes).
type ClusterConfig struct {
	// KubeletIdentityClientID is the kubelet identity nodes should run with; "" means unknown,
	// and no KubeletIdentity drift is judged.
	KubeletIdentityClientID string
	// Network is the cluster's network configuration; nil means unknown, and no ClusterConfig
	// drift is judged.
	Network *api.ClusterNetwork
}

// ClusterNetworkAnnotation renders the network settings that need a new node when they change
// (plugin, plugin mode, dataplane) as the api.AnnotationClusterNetwork value a NodeClaim carries.
func ClusterNetworkAnnotation(n api.ClusterNetwork) string {
	return "plugin=" + n.Plugin + ",pluginMode=" + n.PluginMode + ",dataplane=" + n.Dataplane
}

// kubeletIdentityDrift compares the node's kubelet identity label with the cluster's. A node
// without the label is not drifted: upstream did not always set it and does not roll such nodes
// (upstream: pkg/cloudprovider/drift.go isKubeletIdentityDrifted).
func kubeletIdentityDrift(node *corev1.Node, cluster ClusterConfig) []string {
	have := node.Labels[api.LabelKubeletIdentityClientID]
	if have == "" || cluster.KubeletIdentityClientID == "" || have == cluster.KubeletIdentityClientID {
		return nil
	}
	return []string{fmt.Sprintf("kubelet identity client ID %s -> %s", have, cluster.KubeletIdentityClientID)}
}

// clusterNetworkDrift compares the network settings stamped on the claim with the cluster's now,
// naming each setting that changed. Upstream learns this from the AKS machine's driftAction
// (pkg/cloudprovider/drift.go isMachineDrifted); napkit records what it launched with instead.
func clusterNetworkDrift(nc *api.NodeClaim, cluster ClusterConfig) []string {
	if nc == nil || cluster.Network == nil {
		return nil
	}
	stamped, ok := nc.Annotations[api.AnnotationClusterNetwork]
	if !ok {
		return nil
	}
	want := ClusterNetworkAnnotation(*cluster.Network)
	if stamped == want {
		return nil
	}
	before, after := splitSettings(stamped), splitSettings(want)
	var changed []string
	for _, key := range []string{"plugin", "pluginMode", "dataplane"} {
		if before[key] != after[key] {
			changed = append(changed, fmt.Sprintf("network %s %q -> %q", key, before[key], after[key]))
		}
	}
	if len(changed) == 0 {
		changed = []string{"network " + stamped + " -> " + want}
	}
	return changed
}

func splitSettings(s string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}
