package azure_test

import (
	"context"
	"fmt"
	"time"

	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// The Azure launcher against the simulated Azure: the same code runs against
// ARM with a real credential and nil ClientOptions.
func ExampleNewLauncher() {
	sim := azuresim.New(azuresim.Options{})
	l, err := azure.NewLauncher(azure.Options{
		SubscriptionID: sim.SubscriptionID(),
		ResourceGroup:  "MC_rg_demo_westus2",
		Location:       sim.Location(),
		ClusterName:    "demo",
		Credential:     sim.Credential(),
		ClientOptions:  sim.ClientOptions(),
		PollFrequency:  10 * time.Millisecond,
		Seed:           1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	inst, err := l.Create(context.Background(), &launch.Request{
		NodeClaimName: "default-x7k2p",
		NodePool:      "default",
		Candidates: []launch.Candidate{{
			SKU: "Standard_D2s_v5", Family: "standardDSv5Family", VCPUs: 2,
			Offerings: []launch.Offering{
				{Zone: "westus2-1", CapacityType: launch.CapacityTypeOnDemand, Price: 0.096, Available: true},
				{Zone: "westus2-2", CapacityType: launch.CapacityTypeSpot, Price: 0.019, Available: true},
			},
		}},
		Image:        launch.ImageRef{CommunityGalleryImageID: testCIG},
		CustomData:   bootstrap.NewSecret("IyEvYmluL2Jhc2g="),
		OSDiskSizeGB: 128,
		SubnetID:     testSubnet,
		SSHPublicKey: testSSHKey,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(inst.Name, inst.SKU, inst.Zone, inst.CapacityType, inst.State)
	fmt.Println(inst.ProviderID)
	// Output:
	// aks-default-x7k2p Standard_D2s_v5 westus2-2 spot Succeeded
	// azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/mc_rg_demo_westus2/providers/Microsoft.Compute/virtualMachines/aks-default-x7k2p
}
