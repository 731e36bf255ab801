package azuresim_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch/azuresim"
)

func TestLoadBalancersAndNSGs(t *testing.T) {
	sim := azuresim.New(azuresim.Options{})
	co := sim.ClientOptions()
	co.Retry.MaxRetries = -1
	lbs, err := armnetwork.NewLoadBalancersClient(sim.SubscriptionID(), sim.Credential(), co)
	require.NoError(t, err)
	nsgs, err := armnetwork.NewSecurityGroupsClient(sim.SubscriptionID(), sim.Credential(), co)
	require.NoError(t, err)

	ids := sim.AddLoadBalancer(rg, armnetwork.LoadBalancer{Name: to.Ptr("kubernetes"), Properties: &armnetwork.LoadBalancerPropertiesFormat{
		BackendAddressPools: []*armnetwork.BackendAddressPool{{Name: to.Ptr("kubernetes")}}}})
	assert.Equal(t, []string{"/subscriptions/" + sim.SubscriptionID() + "/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/kubernetes/backendAddressPools/kubernetes"}, ids)
	got, err := lbs.Get(context.Background(), rg, "kubernetes", nil)
	require.NoError(t, err)
	assert.Equal(t, ids[0], *got.Properties.BackendAddressPools[0].ID)
	page, err := lbs.NewListPager(rg, nil).NextPage(context.Background())
	require.NoError(t, err)
	assert.Len(t, page.Value, 1)

	nsgID := sim.AddNetworkSecurityGroup(rg, "aks-agentpool-12345678-nsg")
	nsgPage, err := nsgs.NewListPager(rg, nil).NextPage(context.Background())
	require.NoError(t, err)
	require.Len(t, nsgPage.Value, 1)
	assert.Equal(t, nsgID, *nsgPage.Value[0].ID)
	_, err = lbs.Get(context.Background(), rg, "kubernetes-internal", nil)
	_, status := armCode(t, err)
	assert.Equal(t, http.StatusNotFound, status)
}

// A NIC naming a pool of this subscription that does not exist is refused;
// pools of other subscriptions are not simulated and pass.
func TestNICBackendPoolsMustExist(t *testing.T) {
	c := newClients(t, azuresim.Options{})
	ids := c.sim.AddLoadBalancer(rg, armnetwork.LoadBalancer{Name: to.Ptr("kubernetes"), Properties: &armnetwork.LoadBalancerPropertiesFormat{
		BackendAddressPools: []*armnetwork.BackendAddressPool{{Name: to.Ptr("kubernetes")}}}})
	for pool, wantOK := range map[string]bool{
		ids[0]: true,
		"/subscriptions/" + c.sim.SubscriptionID() + "/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/kubernetes/backendAddressPools/gone": false,
		"/subscriptions/other/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb/backendAddressPools/p":                                     true,
	} {
		_, err := c.nics.BeginCreateOrUpdate(context.Background(), rg, "nic", armnetwork.Interface{
			Location: to.Ptr(c.sim.Location()),
			Properties: &armnetwork.InterfacePropertiesFormat{IPConfigurations: []*armnetwork.InterfaceIPConfiguration{{
				Name: to.Ptr("nic"), Properties: &armnetwork.InterfaceIPConfigurationPropertiesFormat{
					Subnet:                          &armnetwork.Subnet{ID: to.Ptr("/subnets/s")},
					LoadBalancerBackendAddressPools: []*armnetwork.BackendAddressPool{{ID: to.Ptr(pool)}},
				},
			}}},
		}, nil)
		if wantOK {
			assert.NoError(t, err, pool)
			continue
		}
		code, status := armCode(t, err)
		assert.Equal(t, "InvalidResourceReference", code)
		assert.Equal(t, http.StatusBadRequest, status)
	}
}

func TestExtensions(t *testing.T) {
	c := newClients(t, azuresim.Options{})
	co := c.sim.ClientOptions()
	co.Retry.MaxRetries = -1
	exts, err := armcompute.NewVirtualMachineExtensionsClient(c.sim.SubscriptionID(), c.sim.Credential(), co)
	require.NoError(t, err)
	ext := armcompute.VirtualMachineExtension{Location: to.Ptr(c.sim.Location()), Properties: &armcompute.VirtualMachineExtensionProperties{
		Publisher: to.Ptr("Microsoft.Azure.Extensions"), Type: to.Ptr("CustomScript"), TypeHandlerVersion: to.Ptr("2.0"),
		ProtectedSettings: map[string]string{"commandToExecute": "secret"},
	}}
	_, err = exts.BeginCreateOrUpdate(context.Background(), rg, "vm-x", "cse", ext, nil)
	_, status := armCode(t, err)
	assert.Equal(t, http.StatusNotFound, status, "no VM")

	_, err = c.putVM(t, "vm-x", "Standard_D2s_v5", "1", false)
	require.NoError(t, err)
	p, err := exts.BeginCreateOrUpdate(context.Background(), rg, "vm-x", "cse", ext, nil)
	require.NoError(t, err)
	_, err = p.PollUntilDone(context.Background(), poll)
	require.NoError(t, err)
	got, err := exts.Get(context.Background(), rg, "vm-x", "cse", nil)
	require.NoError(t, err)
	assert.Equal(t, "Succeeded", *got.Properties.ProvisioningState)
	assert.Nil(t, got.Properties.ProtectedSettings, "ARM never returns protectedSettings")
	assert.Equal(t, []string{"cse"}, c.sim.Extensions(rg, "vm-x"))
	assert.Equal(t, 4, c.sim.Writes()["vm-x"], "the refused extension PUT, NIC, VM and extension all count for the VM")
}
