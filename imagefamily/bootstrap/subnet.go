package bootstrap

import (
	"regexp"
	"strings"
)

// Subnet is a parsed virtual network subnet ID.
type Subnet struct {
	SubscriptionID string
	ResourceGroup  string
	VirtualNetwork string
	Name           string
}

// subnetIDPattern matches an ARM subnet ID; the segment names are case-insensitive as in ARM.
var subnetIDPattern = regexp.MustCompile(
	`(?i)^/subscriptions/([^/]+)/resourceGroups/([^/]+)/providers/Microsoft\.Network/virtualNetworks/([^/]+)/subnets/([^/]+)$`)

// ParseSubnetID splits a subnet ID into its parts; anything else is an ErrInvalid *api.FieldError.
func ParseSubnetID(id string) (Subnet, error) {
	m := subnetIDPattern.FindStringSubmatch(id)
	if m == nil {
		return Subnet{}, invalid("subnet ID", id,
			"want /subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet>")
	}
	return Subnet{SubscriptionID: m[1], ResourceGroup: m[2], VirtualNetwork: m[3], Name: m[4]}, nil
}

// AKS names the VNET it manages in the node resource group aks-vnet-<8 digits>, and its subnet
// aks-subnet (upstream: pkg/utils/utils.go IsAKSManagedVNET; ARM names compare case-insensitively).
var (
	managedVNETPattern = regexp.MustCompile(`(?i)^aks-vnet-\d{8}$`)
	managedSubnetName  = "aks-subnet"
)

// InAKSManagedVNET reports whether the subnet is the one of the VNET AKS made in nodeResourceGroup.
func (s Subnet) InAKSManagedVNET(nodeResourceGroup string) bool {
	return managedVNETPattern.MatchString(s.VirtualNetwork) && strings.EqualFold(s.ResourceGroup, nodeResourceGroup) &&
		strings.EqualFold(s.Name, managedSubnetName)
}
