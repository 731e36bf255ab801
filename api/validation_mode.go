package api

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Provisioning modes: how nodes are created (see the Azure provider's --provision-mode).
const (
	ProvisionModeAKSScriptless            = "aksscriptless"
	ProvisionModeBootstrappingClient      = "bootstrappingclient"
	ProvisionModeAKSMachineAPI            = "aksmachineapi"
	ProvisionModeAKSMachineAPIHeaderBatch = "aksmachineapiheaderbatch"
)

var provisionModes = []string{
	ProvisionModeAKSScriptless, ProvisionModeBootstrappingClient, ProvisionModeAKSMachineAPI,
	ProvisionModeAKSMachineAPIHeaderBatch,
}

// IsMachineAPIMode reports whether mode creates nodes through the AKS Machine API, where AKS builds
// the VM and its bootstrap server-side.
func IsMachineAPIMode(mode string) bool {
	return mode == ProvisionModeAKSMachineAPI || mode == ProvisionModeAKSMachineAPIHeaderBatch
}

// ValidateForMode checks what depends on the provisioning mode ("" means the default, aksscriptless):
// Windows image families need an AKS Machine API mode, because only AKS's server-side bootstrap
// can build Windows nodes; the scriptless and bootstrapping-client modes render Linux bootstrap
// data. The error wraps ErrInvalid.
func (nc *AKSNodeClass) ValidateForMode(mode string) error {
	if mode == "" {
		mode = ProvisionModeAKSScriptless
	}
	if errs := oneOf(field.NewPath("provisionMode"), mode, provisionModes...); len(errs) > 0 {
		return toError(errs)
	}
	family := nc.Spec.ImageFamily
	if family == nil || !IsWindowsImageFamily(*family) || IsMachineAPIMode(mode) {
		return nil
	}
	return toError([]*FieldError{invalid(field.NewPath("spec", "imageFamily"), *family,
		"Windows nodes need provision mode %s, not %s", strings.Join([]string{ProvisionModeAKSMachineAPI, ProvisionModeAKSMachineAPIHeaderBatch}, " or "), mode)})
}
