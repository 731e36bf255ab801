package launch

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/napkit/napkit/imagefamily"
)

// nodeClaimNamePattern is what Azure accepts in a Linux VM and computer name
// once prefixed with "aks-" (at most 64 characters).
var nodeClaimNamePattern = regexp.MustCompile(`^[a-z0-9]([-.a-z0-9]{0,58}[a-z0-9])?$`)

// Validate reports every problem with the request for a VM-based launcher in
// the default mode, wrapped in ErrInvalidRequest. It never quotes a secret.
func (r *Request) Validate() error { return r.ValidateFor(imagefamily.ModeScriptless) }

// ValidateFor checks the request for a launcher in mode. A BootstrapFor
// request's bootstrap is checked per offering, when it is made.
func (r *Request) ValidateFor(mode imagefamily.Mode) error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !nodeClaimNamePattern.MatchString(r.NodeClaimName) {
		add("nodeClaimName %q must be 1-60 lowercase letters, digits, '-' or '.'", r.NodeClaimName)
	}
	if r.NodePool == "" {
		add("nodePool is required")
	}
	if len(r.Candidates) == 0 {
		add("at least one candidate is required")
	}
	for i, c := range r.Candidates {
		errs = append(errs, c.validate(i)...)
	}
	if !mode.IsMachineAPI() {
		errs = append(errs, r.validateVM()...)
	}
	if r.BootstrapFor == nil {
		b := Bootstrap{Image: r.Image, CustomData: r.CustomData, CSE: r.CSE, Machine: r.Machine}
		if err := b.validate(mode); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalidRequest, errors.Join(errs...))
}

// validateVM checks what only a VM the launcher builds itself needs.
func (r *Request) validateVM() []error {
	var errs []error
	if r.OSDiskSizeGB <= 0 {
		errs = append(errs, fmt.Errorf("osDiskSizeGB must be positive, got %d", r.OSDiskSizeGB))
	}
	if r.SubnetID == "" {
		errs = append(errs, errors.New("subnetID is required"))
	}
	if r.PodIPConfigurations < 0 || r.PodIPConfigurations >= MaxNICIPConfigurations {
		errs = append(errs, fmt.Errorf("podIPConfigurations must be between 0 and %d (a NIC holds %d IP configurations), got %d",
			MaxNICIPConfigurations-1, MaxNICIPConfigurations, r.PodIPConfigurations))
	}
	if r.SSHPublicKey == "" {
		errs = append(errs, errors.New("sshPublicKey is required: password authentication is disabled"))
	}
	return errs
}

func (c Candidate) validate(i int) []error {
	var errs []error
	if c.SKU == "" {
		errs = append(errs, fmt.Errorf("candidates[%d]: sku is required", i))
	}
	if c.VCPUs <= 0 {
		errs = append(errs, fmt.Errorf("candidates[%d] %s: vCPUs must be positive", i, c.SKU))
	}
	for j, o := range c.Offerings {
		if _, err := ZoneNumbers(o.Zone); err != nil {
			errs = append(errs, fmt.Errorf("candidates[%d] %s offerings[%d]: %w", i, c.SKU, j, err))
		}
		if o.CapacityType != CapacityTypeSpot && o.CapacityType != CapacityTypeOnDemand {
			errs = append(errs, fmt.Errorf("candidates[%d] %s offerings[%d]: capacity type %q is not %s or %s",
				i, c.SKU, j, o.CapacityType, CapacityTypeSpot, CapacityTypeOnDemand))
		}
	}
	return errs
}
