package bootstrap

import "regexp"

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

// ParseSubnetID splits a subnet ID into its parts; anything else is an ErrInvalid *FieldError.
func ParseSubnetID(id string) (Subnet, error) {
	m := subnetIDPattern.FindStringSubmatch(id)
	if m == nil {
		return Subnet{}, invalid("subnet ID", id,
			"want /subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet>")
	}
	return Subnet{SubscriptionID: m[1], ResourceGroup: m[2], VirtualNetwork: m[3], Name: m[4]}, nil
}
