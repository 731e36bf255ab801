package azure_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

const testCSE = "bash /opt/azure/containers/provision.sh --token abcdef.0123456789abcdef"

// The VM-based modes add their extensions after the VM, one write each.
func TestExtensions(t *testing.T) {
	azureStack := cloud.Configuration{Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
		cloud.ResourceManager: {Endpoint: "https://management.local.azurestack.external", Audience: "https://management.azurestack.external"},
	}}
	tests := []struct {
		name       string
		mutate     func(*azure.Options)
		wantExts   []string // in PUT order
		wantWrites int
	}{
		{name: "aksscriptless, public cloud: billing", wantExts: []string{azure.BillingExtensionName}, wantWrites: 3},
		{name: "aksscriptless, China: billing", wantExts: []string{azure.BillingExtensionName}, wantWrites: 3,
			mutate: func(o *azure.Options) { o.ClientOptions.Cloud = cloud.AzureChina }},
		{name: "aksscriptless, Azure Stack: none", wantWrites: 2,
			mutate: func(o *azure.Options) { o.ClientOptions.Cloud = azureStack }},
		{name: "bootstrappingclient: CSE, then billing", wantExts: []string{azure.CSEExtensionName, azure.BillingExtensionName}, wantWrites: 4,
			mutate: func(o *azure.Options) { o.Mode = imagefamily.ModeBootstrappingClient }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mutate := []func(*azure.Options){}
			if tt.mutate != nil {
				mutate = append(mutate, tt.mutate)
			}
			f := newFixture(t, azuresim.Options{}, mutate...)
			req := request("ext-1", candidate("Standard_D2s_v5", 2, offering("westus2-1", launch.CapacityTypeOnDemand, 0.1)))
			req.CSE = bootstrap.NewSecret(testCSE)
			_, err := f.launcher.Create(context.Background(), req)
			require.NoError(t, err)
			var order []string
			for _, r := range f.sim.Requests() {
				if r.Op == azuresim.OpExtensionPut {
					order = append(order, field(jsonBody(t, r), "properties.type").(string))
				}
			}
			assert.Len(t, order, len(tt.wantExts))
			assert.ElementsMatch(t, tt.wantExts, f.sim.Extensions(testRG, "aks-ext-1"))
			assert.Equal(t, tt.wantWrites, writes(f.sim, "aks-ext-1"), "ARM writes for the node")
		})
	}
}

func TestExtensionBodies(t *testing.T) {
	var logs bytes.Buffer
	f := newFixture(t, azuresim.Options{}, func(o *azure.Options) {
		o.Mode = imagefamily.ModeBootstrappingClient
		o.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	req := request("extbody-1", candidate("Standard_D2s_v5", 2, offering("westus2-1", launch.CapacityTypeOnDemand, 0.1)))
	req.CSE = bootstrap.NewSecret(testCSE)
	_, err := f.launcher.Create(context.Background(), req)
	require.NoError(t, err)

	billing := lastPut(t, f.sim, azuresim.OpExtensionPut, "aks-extbody-1/extensions/"+azure.BillingExtensionName)
	for path, want := range map[string]any{
		"location": "westus2", "properties.publisher": "Microsoft.AKS", "properties.type": "Compute.AKS.Linux.Billing",
		"properties.typeHandlerVersion": "1.0", "properties.autoUpgradeMinorVersion": true,
	} {
		assert.Equal(t, want, field(billing, path), path)
	}
	// Tag keys hold dots, which field() would split.
	assert.Equal(t, testCluster, field(billing, "tags").(map[string]any)[azure.TagCluster])
	assert.Nil(t, field(billing, "properties.protectedSettings"))

	cse := lastPut(t, f.sim, azuresim.OpExtensionPut, "aks-extbody-1/extensions/"+azure.CSEExtensionName)
	for path, want := range map[string]any{
		"properties.publisher": "Microsoft.Azure.Extensions", "properties.type": "CustomScript",
		"properties.typeHandlerVersion": "2.0", "properties.protectedSettings.commandToExecute": testCSE,
	} {
		assert.Equal(t, want, field(cse, path), path)
	}
	assert.Nil(t, field(cse, "properties.settings"), "the command is only in protectedSettings")
	assert.NotContains(t, logs.String(), testCSE)
	for _, r := range f.sim.Requests() {
		if r.Op != azuresim.OpExtensionPut || r.Name != "aks-extbody-1/extensions/"+azure.CSEExtensionName {
			assert.NotContains(t, string(r.Body), testCSE, "%s %s", r.Method, r.Path)
		}
	}
}

// A failing extension fails the launch and removes the VM and NIC.
func TestExtensionFailureCleansUp(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultServerError, Op: azuresim.OpExtensionPut})
	_, err := f.launcher.Create(context.Background(),
		request("extfail-1", candidate("Standard_D2s_v5", 2, offering("westus2-1", launch.CapacityTypeOnDemand, 0.1))))
	require.ErrorIs(t, err, launch.ErrCloud)
	assert.Empty(t, f.sim.VMNames())
	assert.Empty(t, f.sim.NICNames())
}

func TestBootstrappingClientNeedsCSE(t *testing.T) {
	f := newFixture(t, azuresim.Options{}, func(o *azure.Options) { o.Mode = imagefamily.ModeBootstrappingClient })
	_, err := f.launcher.Create(context.Background(), request("nocse-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.ErrorIs(t, err, launch.ErrInvalidRequest)
	assert.ErrorContains(t, err, "cse is required")
	assert.Empty(t, f.sim.Requests())
}
