package azure

import (
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
)

// validateMode checks the mode and what it needs.
func (o Options) validateMode() []error {
	mode, err := o.Mode.Resolve()
	if err != nil {
		return []error{fmt.Errorf("Mode: %w", err)}
	}
	if !mode.IsMachineAPI() {
		return nil
	}
	var errs []error
	if o.ClusterResourceGroup == "" {
		errs = append(errs, fmt.Errorf("ClusterResourceGroup is required in mode %s", mode))
	}
	if o.MachinesPool == "" {
		errs = append(errs, fmt.Errorf("MachinesPool is required in mode %s", mode))
	}
	return errs
}

// billingClouds are the clouds where AKS bills Linux nodes through the
// Compute.AKS.Linux.Billing extension (reference 7.3): public, China and US
// Government, told apart by their Resource Manager endpoint.
func billingClouds() []cloud.Configuration {
	return []cloud.Configuration{cloud.AzurePublic, cloud.AzureChina, cloud.AzureGovernment}
}

// billsByExtension reports whether VMs in cloud c get the billing extension.
// A zero configuration is azcore's default, the public cloud.
func billsByExtension(c cloud.Configuration) bool {
	endpoint := c.Services[cloud.ResourceManager].Endpoint
	if endpoint == "" {
		return true
	}
	for _, known := range billingClouds() {
		if known.Services[cloud.ResourceManager].Endpoint == endpoint {
			return true
		}
	}
	return false
}
