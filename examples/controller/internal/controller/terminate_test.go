package controller

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// listOnly hides every method of a launcher but launch.Launcher's, as a launcher for another
// cloud that cannot find an instance by its claim's name would.
type listOnly struct{ launch.Launcher }

// A NodeClaim whose launch never reported a provider ID still has its VM removed when it is
// deleted. The Azure launcher finds the VM by the claim's name with one GET; a launcher without
// launch.NodeClaimFinder is listed in full (the only way before, which at 1,000 VMs was 50 reads
// per claim). The group holds 30 more VMs in pages of 5.
func TestTerminateFindsTheVMOfAClaimWithoutProviderID(t *testing.T) {
	tests := []struct {
		name      string
		wrap      func(launch.Launcher) launch.Launcher
		claim     string
		wantLists int
	}{
		{name: "found by name", wrap: func(l launch.Launcher) launch.Launcher { return l }, claim: "late-7", wantLists: 0},
		{name: "listed", wrap: func(l launch.Launcher) launch.Launcher { return listOnly{l} }, claim: "late-7", wantLists: 7},
		{name: "found by name, never made", wrap: func(l launch.Launcher) launch.Launcher { return l }, claim: "never", wantLists: 0},
		{name: "listed, never made", wrap: func(l launch.Launcher) launch.Launcher { return listOnly{l} }, claim: "never", wantLists: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			sim, launcher := terminateSim(t)
			for i := range 31 {
				_, err := launcher.Create(ctx, terminateRequest(fmt.Sprintf("late-%d", i)))
				require.NoError(t, err)
			}
			e := newTestEnv(t)
			e.c.cfg.Launcher = tt.wrap(launcher)
			e.addClaim(t, testClaim(tt.claim, "default", "", claimDeleting()))
			sim.ResetRecords()

			_, err := e.c.terminateClaim(ctx, e.c.claim(tt.claim))
			require.NoError(t, err)

			assert.NotContains(t, sim.VMNames(), azure.ResourceName(tt.claim))
			assert.Len(t, sim.VMNames(), 30+btoi(tt.claim == "never"), "only the claim's VM is deleted")
			assert.Len(t, sim.RequestsFor(azuresim.OpVMList, ""), tt.wantLists)
			assert.Empty(t, e.storedClaim(t, tt.claim).Finalizers, "the claim is released")
		})
	}
}

// terminateSim is the simulated Azure (lists in pages of 5) and the real Azure launcher on it.
func terminateSim(t *testing.T) (*azuresim.Sim, *azure.Launcher) {
	t.Helper()
	sim := azuresim.New(azuresim.Options{PageSize: 5})
	l, err := azure.NewLauncher(azure.Options{SubscriptionID: sim.SubscriptionID(), ResourceGroup: "MC_rg_napkit_westus2",
		Location: sim.Location(), ClusterName: "napkit", Credential: sim.Credential(), ClientOptions: sim.ClientOptions(),
		PollFrequency: time.Millisecond, PollRate: math.Inf(1), RequestRates: azure.UnlimitedRequestRates(), DisableNetworkLookup: true})
	require.NoError(t, err)
	return sim, l
}

// terminateRequest launches a D2s_v5 for the claim.
func terminateRequest(claim string) *launch.Request {
	return &launch.Request{NodeClaimName: claim, NodePool: "default",
		Candidates: []launch.Candidate{{SKU: "Standard_D2s_v5", Family: "standardDSv5Family", VCPUs: 2,
			Offerings: []launch.Offering{{Zone: "westus2-1", CapacityType: launch.CapacityTypeOnDemand, Price: 0.1, Available: true}}}},
		Image:      launch.ImageRef{CommunityGalleryImageID: "/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/202501.01.0"},
		CustomData: bootstrap.NewSecret("I2Jvb3RzdHJhcA=="), OSDiskSizeGB: 128,
		SubnetID:     "/subscriptions/sub/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes",
		SSHPublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTests napkit"}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
