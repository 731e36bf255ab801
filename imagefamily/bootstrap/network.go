package bootstrap

import (
	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily/internal/kubever"
)

// AKS network labels a node carries so that the CNI and policy agents configure it correctly.
const (
	LabelAzureCNIOverlay = "kubernetes.azure.com/azure-cni-overlay"
	LabelNetworkSubnet   = "kubernetes.azure.com/network-subnet"
	LabelVNETGUID        = "kubernetes.azure.com/nodenetwork-vnetguid"
	LabelPodNetworkType  = "kubernetes.azure.com/podnetwork-type"
	LabelStatelessCNI    = "kubernetes.azure.com/network-stateless-cni"
	LabelEBPFDataplane   = api.LabelAKSEBPFDataplane
)

// From Kubernetes 1.34 overlay nodes run the stateless CNI.
const statelessCNIFromMinor = 34

// NetworkInput is the cluster's network configuration plus what the node labels need.
type NetworkInput struct {
	Network api.ClusterNetwork
	// SubnetName is the node subnet's name (the last segment of its ID).
	SubnetName string
	// VNETGUID is the resourceGuid of the node virtual network.
	VNETGUID string
	// KubernetesVersion gates the stateless CNI label.
	KubernetesVersion string
}

// NetworkSettings is what the node bootstrap needs to know about the network.
type NetworkSettings struct {
	// Plugin is NETWORK_PLUGIN: "none" when something other than the node image installs the CNI
	// (Azure CNI overlay and Cilium are deployed as cluster add-ons), "azure" for node-subnet Azure
	// CNI, which the image sets up itself.
	Plugin string
	// Policy is NETWORK_POLICY, the cluster's network policy engine ("" for none).
	Policy string
	// Labels are the network labels of the node.
	Labels map[string]string
}

// Network derives the bootstrap network settings (reference case 15). Kubenet, Calico and IPv6 are
// ErrUnsupported, as for Karpenter on AKS.
func Network(in NetworkInput) (NetworkSettings, error) {
	n := in.Network
	if err := checkNetwork(n); err != nil {
		return NetworkSettings{}, err
	}
	overlay := n.Plugin == api.NetworkPluginAzure && n.PluginMode == api.NetworkPluginModeOverlay
	cilium := n.Dataplane == api.NetworkDataplaneCilium
	s := NetworkSettings{Plugin: api.NetworkPluginAzure, Policy: n.Policy, Labels: map[string]string{}}
	if overlay || cilium || n.Plugin == api.NetworkPluginNone {
		s.Plugin = api.NetworkPluginNone
	}
	if overlay {
		v, err := kubever.Parse(in.KubernetesVersion)
		stateless := err == nil && v.AtLeast(1, statelessCNIFromMinor)
		s.Labels[LabelAzureCNIOverlay] = "true"
		s.Labels[LabelNetworkSubnet] = in.SubnetName
		s.Labels[LabelVNETGUID] = in.VNETGUID
		s.Labels[LabelPodNetworkType] = api.NetworkPluginModeOverlay
		s.Labels[LabelStatelessCNI] = boolString(stateless)
	}
	if cilium {
		s.Labels[LabelEBPFDataplane] = api.NetworkDataplaneCilium
	}
	return s, nil
}

func checkNetwork(n api.ClusterNetwork) error {
	switch {
	case n.Plugin != api.NetworkPluginAzure && n.Plugin != api.NetworkPluginNone:
		return unsupported("network plugin", n.Plugin, "must be %q or %q", api.NetworkPluginAzure, api.NetworkPluginNone)
	case n.PluginMode != "" && n.PluginMode != api.NetworkPluginModeOverlay:
		return unsupported("network plugin mode", n.PluginMode, "must be %q or empty", api.NetworkPluginModeOverlay)
	case n.Dataplane != "" && n.Dataplane != api.NetworkDataplaneAzure && n.Dataplane != api.NetworkDataplaneCilium:
		return unsupported("network dataplane", n.Dataplane, "must be %q, %q or empty", api.NetworkDataplaneAzure, api.NetworkDataplaneCilium)
	case n.Policy == api.NetworkPolicyCalico:
		return unsupported("network policy", n.Policy, "Calico is not supported")
	}
	for _, f := range n.IPFamilies {
		if f != "IPv4" {
			return unsupported("IP family", f, "only IPv4 clusters are supported")
		}
	}
	return nil
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
