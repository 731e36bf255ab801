package azure_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// lb is a load balancer with NIC-based pools of the given names.
func lb(name string, pools ...string) armnetwork.LoadBalancer {
	out := armnetwork.LoadBalancer{Name: to.Ptr(name), Properties: &armnetwork.LoadBalancerPropertiesFormat{}}
	for _, p := range pools {
		out.Properties.BackendAddressPools = append(out.Properties.BackendAddressPools, &armnetwork.BackendAddressPool{Name: to.Ptr(p)})
	}
	return out
}

// nicPools lists the backend pool IDs of the last NIC PUT on name.
func nicPools(t *testing.T, sim *azuresim.Sim, name string) []string {
	t.Helper()
	var ids []string
	pools, _ := field(lastPut(t, sim, azuresim.OpNICPut, name), "properties.ipConfigurations.0.properties.loadBalancerBackendAddressPools").([]any)
	for _, p := range pools {
		ids = append(ids, p.(map[string]any)["id"].(string))
	}
	return ids
}

func lbListCalls(sim *azuresim.Sim) int { return countRequests(sim, ofOp(azuresim.OpLBList)) }

// Reference 7.2: the NIC joins the IPv4, NIC-based pools of the kubernetes
// and kubernetes-internal load balancers, looked up once for many launches.
func TestLoadBalancerLookup(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	public := lb("kubernetes", "kubernetes", "aksOutboundBackendPool", "aksOutboundBackendPool-ipv6", "ip-based")
	public.Properties.BackendAddressPools[3].Properties = &armnetwork.BackendAddressPoolPropertiesFormat{
		VirtualNetwork: &armnetwork.SubResource{ID: to.Ptr("/subscriptions/x/resourceGroups/y/providers/Microsoft.Network/virtualNetworks/v")}}
	publicIDs := f.sim.AddLoadBalancer(testRG, public)
	internalIDs := f.sim.AddLoadBalancer(testRG, lb("kubernetes-internal", "kubernetes-internal", "kubernetes-ipv6"))
	f.sim.AddLoadBalancer(testRG, lb("unrelated", "other"))

	var reqs []*launch.Request
	for i := range 20 {
		reqs = append(reqs, request(fmt.Sprintf("lb-%02d", i), candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	}
	for _, r := range launch.LaunchAll(context.Background(), f.launcher, reqs, 0) {
		require.NoError(t, r.Err)
	}
	want := []string{internalIDs[0], publicIDs[1], publicIDs[0]} // sorted by ID
	for _, r := range reqs {
		assert.Equal(t, want, nicPools(t, f.sim, azure.ResourceName(r.NodeClaimName)), r.NodeClaimName)
	}
	assert.Equal(t, 1, lbListCalls(f.sim), "one lookup serves every launch")
}

func TestLoadBalancerPoolPrecedence(t *testing.T) {
	const optPool, reqPool = "/subscriptions/sub/resourceGroups/mc/providers/Microsoft.Network/loadBalancers/lb/backendAddressPools/opt",
		"/subscriptions/sub/resourceGroups/mc/providers/Microsoft.Network/loadBalancers/lb/backendAddressPools/req"
	tests := []struct {
		name      string
		opts      func(*azure.Options)
		reqPools  []string
		want      []string
		wantCalls int
	}{
		{name: "request pools win", opts: func(o *azure.Options) { o.LoadBalancerBackendPools = []string{optPool} },
			reqPools: []string{reqPool}, want: []string{reqPool}},
		{name: "options pools", opts: func(o *azure.Options) { o.LoadBalancerBackendPools = []string{optPool} },
			want: []string{optPool}},
		{name: "lookup disabled", opts: func(o *azure.Options) { o.DisableNetworkLookup = true }},
		{name: "lookup finds no load balancer", opts: func(*azure.Options) {}, wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, azuresim.Options{}, tt.opts)
			req := request("prec-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...))
			req.LoadBalancerBackendPools = tt.reqPools
			_, err := f.launcher.Create(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, tt.want, nicPools(t, f.sim, "aks-prec-1"))
			assert.Equal(t, tt.wantCalls, lbListCalls(f.sim))
		})
	}
}

// A load balancer rebuilt since the lookup makes ARM refuse the NIC; the
// launcher looks again and retries once, as the reference does.
func TestStaleLoadBalancerPoolsAreRefreshed(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	f.sim.AddLoadBalancer(testRG, lb("kubernetes", "kubernetes"))
	_, err := f.launcher.Create(context.Background(), request("stale-lb-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.NoError(t, err)

	f.sim.RemoveLoadBalancer(testRG, "kubernetes")
	fresh := f.sim.AddLoadBalancer(testRG, lb("kubernetes", "kubernetes-v2"))
	_, err = f.launcher.Create(context.Background(), request("stale-lb-2", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.NoError(t, err)
	puts := f.sim.RequestsFor(azuresim.OpNICPut, "aks-stale-lb-2")
	require.Len(t, puts, 2)
	assert.Equal(t, 400, puts[0].Status, "the stale pool was refused")
	assert.Equal(t, fresh, nicPools(t, f.sim, "aks-stale-lb-2"))
	assert.Equal(t, 2, lbListCalls(f.sim))
}

// Reference 7.2: only NICs on custom VNETs get AKS's managed NSG.
func TestNetworkSecurityGroupLookup(t *testing.T) {
	managedSubnet := "/subscriptions/" + azuresim.DefaultSubscriptionID + "/resourceGroups/" + testRG +
		"/providers/Microsoft.Network/virtualNetworks/aks-vnet-12345678/subnets/aks-subnet"
	tests := []struct {
		name    string
		nsgs    []string
		subnet  string
		opts    func(*azure.Options)
		wantNSG string // NSG name in testRG, or a full ID
		wantErr error
	}{
		{name: "custom VNET: managed NSG", nsgs: []string{"aks-agentpool-12345678-nsg", "other-nsg"}, subnet: testSubnet, wantNSG: "aks-agentpool-12345678-nsg"},
		{name: "managed VNET: none", nsgs: []string{"aks-agentpool-12345678-nsg"}, subnet: managedSubnet},
		{name: "custom VNET, no managed NSG: none", nsgs: []string{"other-nsg"}, subnet: testSubnet},
		{name: "custom VNET, options NSG", nsgs: []string{"aks-agentpool-12345678-nsg"}, subnet: testSubnet,
			opts: func(o *azure.Options) { o.NetworkSecurityGroupID = nsgID }, wantNSG: nsgID},
		{name: "two managed NSGs: refused", nsgs: []string{"aks-agentpool-12345678-nsg", "aks-agentpool-87654321-nsg"},
			subnet: testSubnet, wantErr: launch.ErrCloud},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []func(*azure.Options){}
			if tt.opts != nil {
				opts = append(opts, tt.opts)
			}
			f := newFixture(t, azuresim.Options{}, opts...)
			ids := map[string]string{}
			for _, n := range tt.nsgs {
				ids[n] = f.sim.AddNetworkSecurityGroup(testRG, n)
			}
			req := request("nsg-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...))
			req.SubnetID = tt.subnet
			_, err := f.launcher.Create(context.Background(), req)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Zero(t, writes(f.sim, "aks-nsg-1"))
				return
			}
			require.NoError(t, err)
			got := field(lastPut(t, f.sim, azuresim.OpNICPut, "aks-nsg-1"), "properties.networkSecurityGroup.id")
			if tt.wantNSG == "" {
				assert.Nil(t, got)
				return
			}
			want := tt.wantNSG
			if id, ok := ids[want]; ok {
				want = id
			}
			assert.Equal(t, want, got)
		})
	}
}

// A NIC PUT refused with 429 says nothing about the pools: they are not
// looked up again (a throttled burst re-listing load balancers on every
// refused NIC spends the reads ARM is already refusing).
func TestThrottledNICPutKeepsLookedUpPools(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	f.sim.AddLoadBalancer(testRG, lb("kubernetes", "kubernetes"))
	_, err := f.launcher.Create(context.Background(), request("pools-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.NoError(t, err)
	require.Equal(t, 1, lbListCalls(f.sim))

	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpNICPut, RetryAfter: time.Millisecond})
	_, err = f.launcher.Create(context.Background(), request("pools-2", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.ErrorIs(t, err, launch.ErrThrottled)
	assert.Equal(t, 1, lbListCalls(f.sim), "no second look-up")
}
