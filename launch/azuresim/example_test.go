package azuresim_test

import (
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"

	"github.com/napkit/napkit/launch/azuresim"
)

// The real SDK client, pointed at the simulator through its transport seam,
// meets an injected throttle.
func Example() {
	sim := azuresim.New(azuresim.Options{})
	sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpVMGet, Count: 1})
	opts := sim.ClientOptions()
	opts.Retry.MaxRetries = -1
	vms, err := armcompute.NewVirtualMachinesClient(sim.SubscriptionID(), sim.Credential(), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 2 {
		_, err = vms.Get(context.Background(), "rg", "aks-missing", nil)
		r := sim.Requests()
		fmt.Println(r[len(r)-1].Method, r[len(r)-1].Op, r[len(r)-1].Status)
	}
	// Output:
	// GET vm.get 429
	// GET vm.get 404
}
