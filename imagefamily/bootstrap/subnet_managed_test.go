package bootstrap_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/imagefamily/bootstrap"
)

// The rule is upstream's IsAKSManagedVNET (Azure/karpenter-provider-azure pkg/utils/utils.go):
// aks-vnet-<8 digits> (case-insensitive) in the node resource group, subnet aks-subnet.
func TestInAKSManagedVNET(t *testing.T) {
	const rg = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/"
	for _, tc := range []struct {
		subnet string
		want   bool
	}{
		{rg + "MC_rg/providers/Microsoft.Network/virtualNetworks/aks-vnet-18484614/subnets/aks-subnet", true},
		{rg + "mc_RG/providers/Microsoft.Network/virtualNetworks/AKS-VNET-18484614/subnets/AKS-Subnet", true},
		{rg + "MC_rg/providers/Microsoft.Network/virtualNetworks/aks-vnet-1848461/subnets/aks-subnet", false},
		{rg + "MC_rg/providers/Microsoft.Network/virtualNetworks/custom-vnet/subnets/aks-subnet", false},
		{rg + "MC_rg/providers/Microsoft.Network/virtualNetworks/aks-vnet-18484614/subnets/custom", false},
		{rg + "other/providers/Microsoft.Network/virtualNetworks/aks-vnet-18484614/subnets/aks-subnet", false},
	} {
		s, err := bootstrap.ParseSubnetID(tc.subnet)
		require.NoError(t, err)
		assert.Equal(t, tc.want, s.InAKSManagedVNET("MC_rg"), tc.subnet)
	}
}
