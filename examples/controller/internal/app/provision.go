package app

import (
	"errors"
	"regexp"

	"github.com/napkit/napkit/imagefamily"
)

// provisioning is how the controller makes nodes: the mode and, in the Machine API modes, where
// the AKS Machines go.
type provisioning struct {
	mode imagefamily.Mode
	// pool is the agent pool of AKS Machines; clusterResourceGroup the managed cluster's group
	// ("" on --simulate, whose cluster's group is fixed).
	pool, clusterResourceGroup string
	// sigSubscriptionID is the subscription of AKS's shared image gallery, the only gallery the
	// Machine API takes images from ("" on --simulate: the simulated Azure's subscription).
	sigSubscriptionID string
}

// agentPoolName is AKS's rule for a Linux agent pool's name: a lowercase letter, then lowercase
// letters and digits, 12 characters at most.
var agentPoolName = regexp.MustCompile(`^[a-z][a-z0-9]{0,11}$`)

// provisionSettings checks --provision-mode and the Machine API flags together: a Machine API
// mode needs its pool (and, on real Azure, the cluster's resource group and the shared image
// gallery's subscription: Azure's provider requires --use-sig in these modes), and the VM mode
// refuses them rather than ignore them.
func provisionSettings(f *Flags) (provisioning, error) {
	mode, err := imagefamily.Mode(f.ProvisionMode).Resolve()
	if err != nil {
		return provisioning{}, &ConfigError{Flag: "--provision-mode", Value: f.ProvisionMode,
			Reason: "must be aksscriptless, aksmachineapi or aksmachineapiheaderbatch", Err: err}
	}
	if mode == imagefamily.ModeBootstrappingClient {
		return provisioning{}, &ConfigError{Flag: "--provision-mode", Value: f.ProvisionMode,
			Reason: "is not supported by this controller, which has no client for AKS's node-bootstrapping service; use aksscriptless or a Machine API mode"}
	}
	p := provisioning{mode: mode, pool: f.AKSMachinesPool, clusterResourceGroup: f.ClusterResourceGroup, sigSubscriptionID: f.SIGSubscriptionID}
	if !mode.IsMachineAPI() {
		return p, errors.Join(onlyInMachineModes("--aks-machines-pool-name", f.AKSMachinesPool, mode),
			onlyInMachineModes("--cluster-resource-group", f.ClusterResourceGroup, mode),
			onlyInMachineModes("--sig-subscription-id", f.SIGSubscriptionID, mode))
	}
	var errs []error
	if f.SimAzureEndpoint != "" {
		errs = append(errs, &ConfigError{Flag: "--sim-azure-endpoint", Value: f.SimAzureEndpoint, Reason: "serves the VM mode only, not --provision-mode=" + string(mode)})
	}
	switch {
	case f.AKSMachinesPool == "":
		errs = append(errs, &ConfigError{Flag: "--aks-machines-pool-name", Reason: "is required with --provision-mode=" + string(mode)})
	case !agentPoolName.MatchString(f.AKSMachinesPool):
		errs = append(errs, &ConfigError{Flag: "--aks-machines-pool-name", Value: f.AKSMachinesPool,
			Reason: "is not an AKS agent pool name (a lowercase letter, then lowercase letters and digits, 12 characters at most)"})
	}
	for _, r := range []struct{ flag, value string }{
		{"--cluster-resource-group", f.ClusterResourceGroup}, {"--sig-subscription-id", f.SIGSubscriptionID},
	} {
		if r.value == "" && !f.Simulate {
			errs = append(errs, &ConfigError{Flag: r.flag, Reason: "is required with --provision-mode=" + string(mode) + " on real Azure"})
		}
	}
	return p, errors.Join(errs...)
}

// onlyInMachineModes refuses a Machine API flag given in a VM mode.
func onlyInMachineModes(flag, value string, mode imagefamily.Mode) error {
	if value == "" {
		return nil
	}
	return &ConfigError{Flag: flag, Value: value, Reason: "applies only to the Machine API modes, not --provision-mode=" + string(mode)}
}
