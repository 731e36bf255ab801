package azure_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

func TestGet(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	inst := launched(t, f, "get-1")[0]
	got, err := f.launcher.Get(context.Background(), inst.ProviderID)
	require.NoError(t, err)
	assert.Equal(t, inst, got)

	_, err = f.launcher.Get(context.Background(), azure.ProviderID(f.sim.SubscriptionID(), testRG, "aks-missing"))
	require.ErrorIs(t, err, launch.ErrNotFound)
	assert.Contains(t, err.Error(), "aks-missing")
}

// List pages through the resource group and keeps only this cluster's VMs.
func TestList(t *testing.T) {
	f := newFixture(t, azuresim.Options{PageSize: 3})
	var names []string
	for i := range 7 {
		names = append(names, fmt.Sprintf("list-%d", i))
	}
	launched(t, f, names...)
	other := newLauncherForCluster(t, f.sim, "other-cluster", f.clock)
	_, err := other.Create(context.Background(), request("foreign-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.NoError(t, err)

	got, err := f.launcher.List(context.Background())
	require.NoError(t, err)
	require.Len(t, got, 7)
	for i, inst := range got {
		assert.Equal(t, names[i], inst.NodeClaimName)
		assert.Equal(t, "default", inst.NodePool)
		assert.Equal(t, testCluster, inst.Tags[azure.TagCluster])
	}
	assert.Len(t, f.sim.RequestsFor(azuresim.OpVMList, ""), 3, "8 VMs in pages of 3")
}

func newLauncherForCluster(t *testing.T, sim *azuresim.Sim, cluster string, clock *fakeClock) *azure.Launcher {
	t.Helper()
	opts := sim.ClientOptions()
	opts.Retry = fastRetry()
	l, err := azure.NewLauncher(azure.Options{
		SubscriptionID: sim.SubscriptionID(), ResourceGroup: testRG, Location: sim.Location(), ClusterName: cluster,
		Credential: sim.Credential(), ClientOptions: opts, PollFrequency: time.Millisecond, Clock: clock.Now,
	})
	require.NoError(t, err)
	return l
}

// putForeignNIC makes a NIC that no launcher made, straight through the SDK.
func putForeignNIC(t *testing.T, sim *azuresim.Sim, name string, tags map[string]*string) {
	t.Helper()
	client, err := armnetwork.NewInterfacesClient(sim.SubscriptionID(), sim.Credential(), sim.ClientOptions())
	require.NoError(t, err)
	poller, err := client.BeginCreateOrUpdate(context.Background(), testRG, name, armnetwork.Interface{
		Location: to.Ptr(sim.Location()),
		Tags:     tags,
		Properties: &armnetwork.InterfacePropertiesFormat{IPConfigurations: []*armnetwork.InterfaceIPConfiguration{{
			Name:       to.Ptr(name),
			Properties: &armnetwork.InterfaceIPConfigurationPropertiesFormat{Subnet: &armnetwork.Subnet{ID: to.Ptr(testSubnet)}},
		}}},
	}, nil)
	require.NoError(t, err)
	_, err = poller.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
	require.NoError(t, err)
}
