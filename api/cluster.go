package api

// Network plugin, plugin mode and dataplane values as `az aks create` spells them.
const (
	NetworkPluginAzure   = "azure"
	NetworkPluginNone    = "none"
	NetworkPluginKubenet = "kubenet"

	NetworkPluginModeOverlay = "overlay"

	NetworkDataplaneAzure  = "azure"
	NetworkDataplaneCilium = "cilium"

	NetworkPolicyCalico = "calico"

	IdentityManaged          = "ManagedIdentity"
	IdentityServicePrincipal = "ServicePrincipal"
)

// ClusterNetwork describes the cluster settings that decide how nodes are networked and identified. They
// come from the cluster, not from a manifest: the CLI takes them as flags, a controller from its options.
type ClusterNetwork struct {
	// Plugin is the network plugin: "azure" (default) or "none" (bring your own CNI).
	Plugin string `json:"plugin,omitempty"`
	// PluginMode is "overlay" (default) or "" for Azure CNI node-subnet.
	PluginMode string `json:"pluginMode,omitempty"`
	// Dataplane is "cilium" (default), "azure" or "".
	Dataplane string `json:"dataplane,omitempty"`
	// Policy is the network policy engine, if any ("cilium", "azure"; "calico" is not supported).
	Policy string `json:"policy,omitempty"`
	// IPFamilies lists the cluster's IP families; only IPv4 is supported.
	IPFamilies []string `json:"ipFamilies,omitempty"`
	// Identity is how the cluster authenticates to Azure: "ManagedIdentity" (default) or
	// "ServicePrincipal" (not supported).
	Identity string `json:"identity,omitempty"`
}

// DefaultClusterNetwork is the configuration the seed documents recommend: Azure CNI overlay with the
// Cilium dataplane and a managed identity.
func DefaultClusterNetwork() ClusterNetwork {
	return ClusterNetwork{
		Plugin:     NetworkPluginAzure,
		PluginMode: NetworkPluginModeOverlay,
		Dataplane:  NetworkDataplaneCilium,
		IPFamilies: []string{"IPv4"},
		Identity:   IdentityManaged,
	}
}
