package kubeletconfig

import "github.com/napkit/napkit/api"

// Default pod limits per network setup (karpenter-provider-azure GetMaxPods). Overlay and bring-your-own
// CNI do not draw pod IPs from the node subnet, so they allow the AKS maximum; node-subnet Azure CNI
// pre-allocates one subnet IP per pod slot, hence its small default.
const (
	MaxPodsOverlay    int32 = 250
	MaxPodsNodeSubnet int32 = 30
	MaxPodsDefault    int32 = 110
)

// MaxPods returns the kubelet's pod limit for nodes of nodeClass (which may be nil) in a cluster with
// the given network: spec.maxPods when set, otherwise the network default above.
//
// The network is matched as given: a zero ClusterNetwork is "anything else" (110), so pass
// api.DefaultClusterNetwork() or the cluster's real settings rather than an empty value.
func MaxPods(nodeClass *api.AKSNodeClass, network api.ClusterNetwork) int32 {
	if nodeClass != nil && nodeClass.Spec.MaxPods != nil {
		return *nodeClass.Spec.MaxPods
	}
	switch {
	case network.Plugin == api.NetworkPluginNone:
		return MaxPodsOverlay
	case network.Plugin == api.NetworkPluginAzure && network.PluginMode == api.NetworkPluginModeOverlay:
		return MaxPodsOverlay
	case network.Plugin == api.NetworkPluginAzure && network.PluginMode == "":
		return MaxPodsNodeSubnet
	default:
		return MaxPodsDefault
	}
}
