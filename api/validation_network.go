package api

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// IPFamilyIPv4 is the only IP family napkit supports.
const IPFamilyIPv4 = "IPv4"

// Network policy engines napkit supports.
const (
	NetworkPolicyCilium = "cilium"
	NetworkPolicyAzure  = "azure"
	NetworkPolicyNone   = "none"
)

// Validate checks the cluster settings napkit can provision for. The seed documents name kubenet,
// Calico, IPv6 and service-principal clusters as unsupported; each gets an error saying so and why.
// Empty fields mean the defaults (Azure CNI overlay, Cilium, IPv4, managed identity). The error
// wraps ErrInvalid.
func (n ClusterNetwork) Validate() error {
	errs := validatePlugin(n)
	errs = append(errs, validatePolicy(n)...)
	for i, family := range n.IPFamilies {
		if family != IPFamilyIPv4 {
			errs = append(errs, invalid(field.NewPath("ipFamilies").Index(i), family,
				"IPv6 and dual-stack clusters are not supported: nodes are created with a single IPv4 NIC configuration"))
		}
	}
	switch n.Identity {
	case "", IdentityManaged:
	case IdentityServicePrincipal:
		errs = append(errs, invalid(field.NewPath("identity"), n.Identity,
			"service-principal clusters are not supported: node bootstrap uses the cluster's managed identity; use a system- or user-assigned managed identity"))
	default:
		errs = append(errs, oneOf(field.NewPath("identity"), n.Identity, IdentityManaged)...)
	}
	return toError(errs)
}

func validatePlugin(n ClusterNetwork) []*FieldError {
	var errs []*FieldError
	switch n.Plugin {
	case "", NetworkPluginAzure, NetworkPluginNone:
	case NetworkPluginKubenet:
		errs = append(errs, invalid(field.NewPath("plugin"), n.Plugin,
			"kubenet is not supported by Karpenter on AKS (a documented limitation); use Azure CNI overlay"))
	default:
		errs = append(errs, oneOf(field.NewPath("plugin"), n.Plugin, NetworkPluginAzure, NetworkPluginNone)...)
	}
	errs = append(errs, oneOf(field.NewPath("pluginMode"), n.PluginMode, NetworkPluginModeOverlay)...)
	return append(errs, oneOf(field.NewPath("dataplane"), n.Dataplane, NetworkDataplaneAzure, NetworkDataplaneCilium)...)
}

func validatePolicy(n ClusterNetwork) []*FieldError {
	p := field.NewPath("policy")
	switch n.Policy {
	case "", NetworkPolicyNone, NetworkPolicyAzure:
		return nil
	case NetworkPolicyCilium:
		if n.Dataplane == NetworkDataplaneAzure {
			return []*FieldError{invalid(p, n.Policy, "network policy cilium needs the cilium dataplane")}
		}
		return nil
	case NetworkPolicyCalico:
		return []*FieldError{invalid(p, n.Policy,
			"Calico is not supported by Karpenter on AKS (a documented limitation); use cilium or azure network policy")}
	}
	return oneOf(p, n.Policy, NetworkPolicyCilium, NetworkPolicyAzure, NetworkPolicyNone)
}
