package launch

import (
	"context"
	"errors"
	"fmt"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
)

// defaultOSDiskSizeGB is the AKSNodeClass CRD default of spec.osDiskSizeGB.
const defaultOSDiskSizeGB int32 = 128

// NodeBootstrappingFunc asks the AKS node bootstrapping service for a
// bootstrappingclient node's customData and CSE (out.Payload is the request
// body) and returns them hydrated with the bootstrap token (bootstrap.Hydrate).
type NodeBootstrappingFunc func(ctx context.Context, out *imagefamily.Output) (*bootstrap.Hydrated, error)

// RequestOptions is what RequestFor needs to launch one NodeClaim.
type RequestOptions struct {
	// Input describes the node for imagefamily.Generate: mode, node class,
	// NodeClaim and NodePool names, labels, taints, cluster and images. Its
	// Shape, Zone and CapacityType are set for each offering tried. The NIC
	// goes in the node class's spec.vnetSubnetID, else Input.Cluster.SubnetID
	// (reference 7.2).
	Input imagefamily.Input
	// InstanceTypes are the NodeClaim's instance types from the catalogue,
	// in the planner's order.
	InstanceTypes []*instancetype.InstanceType
	// SSHPublicKey, AdminUsername, Identities (user-assigned identity IDs)
	// and OSDiskEncryptionSetID are VM settings imagefamily does not decide;
	// the Machine API modes ignore them.
	SSHPublicKey          string
	AdminUsername         string
	Identities            []string
	OSDiskEncryptionSetID string
	// NodeBootstrapping is required in mode bootstrappingclient.
	NodeBootstrapping NodeBootstrappingFunc
}

// RequestFor builds the launch request of a NodeClaim from its catalogue
// instance types and its imagefamily input. The request's BootstrapFor runs
// imagefamily.Generate for the offering the launcher picks, because the image
// definition (architecture, Hyper-V generation), the kubelet reservations and
// the zone and capacity-type labels depend on it. RequestFor also generates
// the first candidate's bootstrap once, so a bad input fails here, before
// any Azure call, and the request's Image, CustomData and Machine show what
// the planned node boots (bootstrappingclient data is fetched per attempt).
func RequestFor(ctx context.Context, opts RequestOptions) (*Request, error) {
	candidates := CandidatesFrom(opts.InstanceTypes)
	if len(candidates) == 0 || len(candidates[0].Offerings) == 0 {
		return nil, fmt.Errorf("%w: no instance type with offerings to launch", ErrInvalidRequest)
	}
	mode, err := opts.Input.Mode.Resolve()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	gen := generator{opts: opts, shapes: shapesOf(opts.InstanceTypes)}
	planned := Choice{Candidate: candidates[0], Offering: candidates[0].Offerings[0]}
	out, err := gen.generate(planned)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	req := requestFrom(opts, candidates)
	req.BootstrapFor = gen.bootstrap
	if mode != imagefamily.ModeBootstrappingClient {
		b, err := BootstrapFrom(out, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
		req.Image, req.CustomData, req.Machine = b.Image, b.CustomData, b.Machine
	}
	return req, nil
}

// BootstrapFrom converts imagefamily's output into a launch Bootstrap: the
// gallery image in the form its gallery needs, the base64 customData, and in
// the other modes the CSE (from hydrated, which bootstrappingclient needs) or
// the AKS Machine body.
func BootstrapFrom(out *imagefamily.Output, hydrated *bootstrap.Hydrated) (Bootstrap, error) {
	if out == nil {
		return Bootstrap{}, errors.New("no imagefamily output")
	}
	b := Bootstrap{Image: imageRefOf(out.Image.Reference)}
	switch {
	case out.Mode.IsMachineAPI():
		if out.Machine == nil {
			return Bootstrap{}, fmt.Errorf("mode %s output has no Machine body", out.Mode)
		}
		b.Machine = out.Machine
	case out.Mode == imagefamily.ModeBootstrappingClient:
		if hydrated == nil {
			return Bootstrap{}, errors.New("mode bootstrappingclient needs the node bootstrapping service's hydrated answer")
		}
		b.CustomData, b.CSE = Secret(hydrated.CustomData.Reveal()), Secret(hydrated.CSE.Reveal())
	default:
		b.CustomData = Secret(out.CustomData.Reveal())
	}
	return b, nil
}

// imageRefOf puts the image ID in the field its gallery kind needs.
func imageRefOf(ref imagefamily.ImageReference) ImageRef {
	if ref.Kind == imagefamily.SharedImageGallery {
		return ImageRef{SharedGalleryID: ref.ID}
	}
	return ImageRef{CommunityGalleryImageID: ref.ID}
}

// requestFrom fills a Request's fields that do not depend on the offering.
func requestFrom(opts RequestOptions, candidates []Candidate) *Request {
	in := opts.Input
	req := &Request{
		NodeClaimName: in.NodeClaim, NodePool: in.NodePool, Candidates: candidates,
		OSDiskSizeGB: defaultOSDiskSizeGB, OSDiskEncryptionSetID: opts.OSDiskEncryptionSetID,
		SubnetID: in.Cluster.SubnetID, Identities: opts.Identities,
		AdminUsername: opts.AdminUsername, SSHPublicKey: opts.SSHPublicKey,
	}
	if in.NodeClass == nil {
		return req
	}
	spec := &in.NodeClass.Spec
	if spec.OSDiskSizeGB != nil {
		req.OSDiskSizeGB = *spec.OSDiskSizeGB
	}
	if spec.VNETSubnetID != nil && *spec.VNETSubnetID != "" {
		req.SubnetID = *spec.VNETSubnetID
	}
	req.Tags = spec.Tags
	if s := spec.Security; s != nil {
		req.EncryptionAtHost = isTrue(s.EncryptionAtHost)
		req.TrustedLaunch = TrustedLaunch{Enabled: spec.TrustedLaunch(), SecureBoot: isTrue(s.SecureBoot), VTPM: isTrue(s.VTPM)}
	}
	return req
}

// generator runs imagefamily.Generate for one offering.
type generator struct {
	opts   RequestOptions
	shapes map[string]imagefamily.NodeShape
}

func (g generator) generate(c Choice) (*imagefamily.Output, error) {
	shape, ok := g.shapes[c.Candidate.SKU]
	if !ok {
		return nil, fmt.Errorf("instance type %s is not among the request's", c.Candidate.SKU)
	}
	in := g.opts.Input
	in.Shape, in.Zone, in.CapacityType = shape, c.Offering.Zone, c.Offering.CapacityType
	return imagefamily.Generate(in)
}

// bootstrap is the request's BootstrapFunc.
func (g generator) bootstrap(ctx context.Context, c Choice) (Bootstrap, error) {
	out, err := g.generate(c)
	if err != nil {
		return Bootstrap{}, err
	}
	var hydrated *bootstrap.Hydrated
	if out.Mode == imagefamily.ModeBootstrappingClient {
		if g.opts.NodeBootstrapping == nil {
			return Bootstrap{}, errors.New("mode bootstrappingclient needs RequestOptions.NodeBootstrapping")
		}
		if hydrated, err = g.opts.NodeBootstrapping(ctx, out); err != nil {
			return Bootstrap{}, fmt.Errorf("node bootstrapping: %w", err)
		}
	}
	return BootstrapFrom(out, hydrated)
}

// shapesOf indexes the instance types' shapes by name.
func shapesOf(types []*instancetype.InstanceType) map[string]imagefamily.NodeShape {
	shapes := make(map[string]imagefamily.NodeShape, len(types))
	for _, it := range types {
		if it != nil && it.SKU != nil {
			shapes[it.Name] = imagefamily.ShapeOf(it)
		}
	}
	return shapes
}

func isTrue(b *bool) bool { return b != nil && *b }
