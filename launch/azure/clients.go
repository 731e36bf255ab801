package azure

import (
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

// Module name and version the Machine API client reports in its User-Agent.
const (
	machineClientModule  = "napkit/launch"
	machineClientVersion = "v0.1.0"
)

// azureClients are the ARM clients of one launcher. They share the options'
// credential and client options, so every call runs through the same kind
// of azcore pipeline (retries, Retry-After, transport).
type azureClients struct {
	vms  *armcompute.VirtualMachinesClient
	exts *armcompute.VirtualMachineExtensionsClient
	nics *armnetwork.InterfacesClient
	lbs  *armnetwork.LoadBalancersClient
	nsgs *armnetwork.SecurityGroupsClient
	// machines is a bare azcore ARM client: the AKS Machine API has no
	// client in the SDK versions this module uses, so its requests are built
	// here and sent through the client's pipeline.
	machines *arm.Client
}

func newAzureClients(o Options) (azureClients, error) {
	var c azureClients
	var err error
	sub, cred, opts := o.SubscriptionID, o.Credential, o.ClientOptions
	if c.vms, err = armcompute.NewVirtualMachinesClient(sub, cred, opts); err != nil {
		return c, fmt.Errorf("virtual machines client: %w", err)
	}
	if c.exts, err = armcompute.NewVirtualMachineExtensionsClient(sub, cred, opts); err != nil {
		return c, fmt.Errorf("virtual machine extensions client: %w", err)
	}
	if c.nics, err = armnetwork.NewInterfacesClient(sub, cred, opts); err != nil {
		return c, fmt.Errorf("network interfaces client: %w", err)
	}
	if c.lbs, err = armnetwork.NewLoadBalancersClient(sub, cred, opts); err != nil {
		return c, fmt.Errorf("load balancers client: %w", err)
	}
	if c.nsgs, err = armnetwork.NewSecurityGroupsClient(sub, cred, opts); err != nil {
		return c, fmt.Errorf("network security groups client: %w", err)
	}
	if c.machines, err = arm.NewClient(machineClientModule, machineClientVersion, cred, opts); err != nil {
		return c, fmt.Errorf("AKS machines client: %w", err)
	}
	return c, nil
}
