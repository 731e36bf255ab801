package azure_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
)

func TestResourceNames(t *testing.T) {
	assert.Equal(t, "aks-default-abc12", azure.ResourceName("default-abc12"))
	name, ok := azure.NodeClaimName("aks-default-abc12")
	assert.True(t, ok)
	assert.Equal(t, "default-abc12", name)
	for _, foreign := range []string{"aks-", "vm-1", "AKS-x", ""} {
		_, ok := azure.NodeClaimName(foreign)
		assert.False(t, ok, foreign)
	}
}

func TestProviderID(t *testing.T) {
	id := azure.ProviderID("sub-1", "MC_RG_Cluster", "aks-default-abc12")
	assert.Equal(t, "azure:///subscriptions/sub-1/resourceGroups/mc_rg_cluster/providers/Microsoft.Compute/virtualMachines/aks-default-abc12", id)
	ref, err := azure.ParseProviderID(id)
	require.NoError(t, err)
	assert.Equal(t, azure.VMRef{SubscriptionID: "sub-1", ResourceGroup: "mc_rg_cluster", Name: "aks-default-abc12"}, ref)
}

func TestParseProviderID(t *testing.T) {
	tests := []struct {
		name    string
		id      string
		want    azure.VMRef
		wantErr bool
	}{
		{name: "ARM casing varies", id: "azure:///SUBSCRIPTIONS/s/resourcegroups/rg/PROVIDERS/microsoft.compute/VirtualMachines/vm",
			want: azure.VMRef{SubscriptionID: "s", ResourceGroup: "rg", Name: "vm"}},
		{name: "wrong scheme", id: "aws:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm", wantErr: true},
		{name: "scale set VM", id: "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines/0", wantErr: true},
		{name: "wrong provider", id: "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualMachines/vm", wantErr: true},
		{name: "empty name", id: "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/", wantErr: true},
		{name: "empty", id: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := azure.ParseProviderID(tt.id)
			if tt.wantErr {
				require.ErrorIs(t, err, launch.ErrInvalidProviderID)
				assert.Contains(t, err.Error(), `"`+tt.id+`"`, "the error names the bad ID")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
