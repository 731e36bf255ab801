package launch_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azuresim"
)

// The Azure launcher against the simulated Azure: the same code runs against
// ARM with a real credential and nil ClientOptions.
func ExampleAzureLauncher() {
	sim := azuresim.New(azuresim.Options{})
	l, err := launch.NewAzureLauncher(launch.AzureOptions{
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
		CustomData:   "IyEvYmluL2Jhc2g=",
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

// Choose ranks by price, then spot, then zonal; the cache rules offerings out.
func ExampleChoose() {
	candidates := []launch.Candidate{{
		SKU: "Standard_D4s_v5", Family: "standardDSv5Family", VCPUs: 4,
		Offerings: []launch.Offering{
			{Zone: "0", CapacityType: launch.CapacityTypeOnDemand, Price: 0.19, Available: true},
			{Zone: "westus2-1", CapacityType: launch.CapacityTypeOnDemand, Price: 0.19, Available: true},
			{Zone: "westus2-1", CapacityType: launch.CapacityTypeSpot, Price: 0.04, Available: true},
		},
	}}
	cache := launch.NewUnavailableOfferings(nil)
	rnd := rand.New(rand.NewPCG(1, 1))
	c, _ := launch.Choose(candidates, cache, rnd)
	fmt.Println(c.Offering.Zone, c.Offering.CapacityType)

	cache.MarkSpotUnavailable(time.Hour) // e.g. after a LowPriorityCores quota error
	c, _ = launch.Choose(candidates, cache, rnd)
	fmt.Println(c.Offering.Zone, c.Offering.CapacityType)
	// Output:
	// westus2-1 spot
	// westus2-1 on-demand
}

// A launch failure is a *LaunchError that errors.Is matches against sentinels.
func ExampleLaunchError() {
	var err error = &launch.LaunchError{Reason: launch.ReasonZonalAllocationFailure, NodeClaimName: "default-x7k2p",
		SKU: "Standard_D2s_v5", Zone: "westus2-1", CapacityType: "on-demand"}
	fmt.Println(errors.Is(err, launch.ErrZonalAllocationFailed), errors.Is(err, launch.ErrInsufficientCapacity), errors.Is(err, launch.ErrThrottled))
	// Output:
	// true true false
}
