package simnodes

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
)

// In the Machine API modes the simulated Azure puts a machine's VM in AKS's default node resource
// group of the cluster (azuresim.MachineNodeResourceGroup); NewAzure refuses a ResourceGroup that
// is not that group, since the provider IDs and the simulated kubelets use it, and takes one that is.
func TestNewAzureMachineModeResourceGroup(t *testing.T) {
	cat := eastusCatalogue(t)
	tests := []struct {
		name    string
		opts    AzureOptions
		wantErr string
	}{
		{name: "VM mode: any group", opts: AzureOptions{ResourceGroup: "MC_rg", ClusterName: "c"}},
		{name: "machine mode: the cluster's node group", opts: AzureOptions{ResourceGroup: "MC_rg_c_eastus", ClusterName: "c",
			Mode: imagefamily.ModeMachineAPIHeaderBatch, MachinesPool: "pool", ClusterResourceGroup: "rg"}},
		{name: "machine mode: another group", opts: AzureOptions{ResourceGroup: "MC_rg", ClusterName: "c",
			Mode: imagefamily.ModeMachineAPI, MachinesPool: "pool", ClusterResourceGroup: "rg"}, wantErr: `must be the machines' node resource group "MC_rg_c_eastus"`},
		{name: "unknown mode", opts: AzureOptions{ResourceGroup: "MC_rg", ClusterName: "c", Mode: "vmss"}, wantErr: "vmss"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Catalogue = cat
			_, l, err := NewAzure(tt.opts)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.NotNil(t, l)
		})
	}
}

// eastusCatalogue is the catalogue of a default AKSNodeClass in eastus.
func eastusCatalogue(t *testing.T) *instancetype.Catalogue {
	t.Helper()
	build, err := controller.NewCatalogue("eastus", api.DefaultClusterNetwork(), launch.NewUnavailableOfferings(nil))
	require.NoError(t, err)
	class := &api.AKSNodeClass{}
	class.Default()
	cat, err := build(class)
	require.NoError(t, err)
	return cat
}
