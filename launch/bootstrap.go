package launch

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
)

// Bootstrap is what one node boots with: the image and the bootstrap data of
// the launcher's provisioning mode. Which fields a mode needs:
//
//	aksscriptless          Image, CustomData
//	bootstrappingclient    Image, CustomData, CSE
//	aksmachineapi(…batch)  Machine
type Bootstrap struct {
	Image      ImageRef
	CustomData bootstrap.Secret
	CSE        bootstrap.Secret
	Machine    *bootstrap.Machine
}

// BootstrapFunc returns the bootstrap of the offering c the launcher picked.
// An error fails the launch with ReasonInvalidRequest and is not retried on
// another offering.
type BootstrapFunc func(ctx context.Context, c Choice) (Bootstrap, error)

// ResolveBootstrap returns the bootstrap of c, checked for mode.
func (r *Request) ResolveBootstrap(ctx context.Context, c Choice, mode imagefamily.Mode) (Bootstrap, error) {
	b := Bootstrap{Image: r.Image, CustomData: r.CustomData, CSE: r.CSE, Machine: r.Machine}
	if r.BootstrapFor != nil {
		var err error
		if b, err = r.BootstrapFor(ctx, c); err != nil {
			return Bootstrap{}, fmt.Errorf("%w: bootstrap for %s %s in %s: %w",
				ErrInvalidRequest, c.Candidate.SKU, c.Offering.CapacityType, c.Offering.Zone, err)
		}
	}
	if err := b.validate(mode); err != nil {
		return Bootstrap{}, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	return b, nil
}

// validate reports what mode needs and b lacks. It never quotes a secret.
func (b Bootstrap) validate(mode imagefamily.Mode) error {
	if mode.IsMachineAPI() {
		if b.Machine == nil || b.Machine.Properties.Kubernetes.NodeImageVersion == "" {
			return errors.New("machine body with a node image version is required in the Machine API modes")
		}
		return nil
	}
	var errs []error
	if (b.Image.CommunityGalleryImageID == "") == (b.Image.SharedGalleryID == "") {
		errs = append(errs, errors.New("exactly one of image.communityGalleryImageID and image.sharedGalleryID is required"))
	}
	if _, err := base64.StdEncoding.DecodeString(b.CustomData.Reveal()); err != nil || b.CustomData.IsZero() {
		errs = append(errs, errors.New("customData must be non-empty base64"))
	}
	if mode == imagefamily.ModeBootstrappingClient && b.CSE.IsZero() {
		errs = append(errs, errors.New("cse is required in mode bootstrappingclient"))
	}
	return errors.Join(errs...)
}
