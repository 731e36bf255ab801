package launch

import (
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
)

// nodeClaimNamePattern is what Azure accepts in a Linux VM and computer name
// once prefixed with "aks-" (at most 64 characters).
var nodeClaimNamePattern = regexp.MustCompile(`^[a-z0-9]([-.a-z0-9]{0,58}[a-z0-9])?$`)

// Validate reports every problem with the request, wrapped in
// ErrInvalidRequest. It never quotes CustomData.
func (r *Request) Validate() error {
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
	if (r.Image.CommunityGalleryImageID == "") == (r.Image.SharedGalleryID == "") {
		add("exactly one of image.communityGalleryImageID and image.sharedGalleryID is required")
	}
	if _, err := base64.StdEncoding.DecodeString(string(r.CustomData)); err != nil || r.CustomData == "" {
		add("customData must be non-empty base64")
	}
	if r.OSDiskSizeGB <= 0 {
		add("osDiskSizeGB must be positive, got %d", r.OSDiskSizeGB)
	}
	if r.SubnetID == "" {
		add("subnetID is required")
	}
	if r.SSHPublicKey == "" {
		add("sshPublicKey is required: password authentication is disabled")
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalidRequest, errors.Join(errs...))
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
		if _, err := armZones(o.Zone); err != nil {
			errs = append(errs, fmt.Errorf("candidates[%d] %s offerings[%d]: %w", i, c.SKU, j, err))
		}
		if o.CapacityType != CapacityTypeSpot && o.CapacityType != CapacityTypeOnDemand {
			errs = append(errs, fmt.Errorf("candidates[%d] %s offerings[%d]: capacity type %q is not %s or %s",
				i, c.SKU, j, o.CapacityType, CapacityTypeSpot, CapacityTypeOnDemand))
		}
	}
	return errs
}
