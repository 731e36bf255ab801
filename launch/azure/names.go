package azure

import (
	"fmt"
	"strings"

	"github.com/napkit/napkit/launch"
)

// vmNamePrefix starts every VM, NIC, OS disk and computer name.
const vmNamePrefix = "aks-"

// ResourceName is the deterministic VM, NIC, OS disk and computer name of a
// NodeClaim. Being a pure function of the NodeClaim is what lets a retried or
// restarted launch find the VM it already made.
func ResourceName(nodeClaimName string) string { return vmNamePrefix + nodeClaimName }

// NodeClaimName recovers the NodeClaim name from a VM or NIC name, or reports
// false for a name that napkit did not make.
func NodeClaimName(resourceName string) (string, bool) {
	name, ok := strings.CutPrefix(resourceName, vmNamePrefix)
	return name, ok && name != ""
}

// ProviderID is the Kubernetes provider ID of a VM:
// azure:///subscriptions/<sub>/resourceGroups/<rg lower>/providers/Microsoft.Compute/virtualMachines/<vm>.
func ProviderID(subscriptionID, resourceGroup, vmName string) string {
	return fmt.Sprintf("azure:///subscriptions/%s/resourceGroups/%s/providers/Microsoft.Compute/virtualMachines/%s",
		subscriptionID, strings.ToLower(resourceGroup), vmName)
}

// VMRef is a parsed provider ID.
type VMRef struct {
	SubscriptionID string
	ResourceGroup  string
	Name           string
}

// ParseProviderID parses a provider ID made by ProviderID. ARM segment names
// are matched case-insensitively, as ARM does; the error quotes the ID.
func ParseProviderID(providerID string) (VMRef, error) {
	rest, ok := strings.CutPrefix(providerID, "azure:///")
	if !ok {
		return VMRef{}, fmt.Errorf("%w %q: want prefix azure:///", launch.ErrInvalidProviderID, providerID)
	}
	parts := strings.Split(rest, "/")
	want := []string{"subscriptions", "", "resourcegroups", "", "providers", "microsoft.compute", "virtualmachines", ""}
	if len(parts) != len(want) {
		return VMRef{}, fmt.Errorf("%w %q: want azure:///subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.Compute/virtualMachines/<name>",
			launch.ErrInvalidProviderID, providerID)
	}
	for i, w := range want {
		if (w == "" && parts[i] == "") || (w != "" && !strings.EqualFold(parts[i], w)) {
			return VMRef{}, fmt.Errorf("%w %q: segment %d is %q", launch.ErrInvalidProviderID, providerID, i+1, parts[i])
		}
	}
	return VMRef{SubscriptionID: parts[1], ResourceGroup: parts[3], Name: parts[7]}, nil
}
