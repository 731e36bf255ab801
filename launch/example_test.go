package launch_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/napkit/napkit/launch"
)

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
