package launch

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/kubeletconfig"
	"github.com/napkit/napkit/requirements"
)

// NodeBootstrappingFunc asks the AKS node bootstrapping service for a
// bootstrappingclient node's customData and CSE (out.Payload is the request
// body) and returns them hydrated with the bootstrap token (bootstrap.Hydrate).
type NodeBootstrappingFunc func(ctx context.Context, out *imagefamily.Output) (*bootstrap.Hydrated, error)

// ClusterSettings are the cluster-wide inputs of every launch: the bootstrap
// data's cluster (API server, CA, token, subnet, kubelet identity client ID,
// VNET GUID, network) and the VM settings a NodeClaim does not decide.
type ClusterSettings struct {
	bootstrap.Cluster
	// SSHPublicKey is the nodes' admin key (password login is off);
	// AdminUsername defaults to DefaultAdminUsername.
	SSHPublicKey  string
	AdminUsername string
	// NodeIdentities are the user-assigned managed identity resource IDs every
	// VM gets: the kubelet identity (whose client ID is
	// Cluster.KubeletIdentityClientID; ACR pulls through the credential
	// provider use it) and any others, as upstream's --node-identities.
	NodeIdentities []string
	// DiskEncryptionSetID, when set, encrypts every managed OS disk with it.
	DiskEncryptionSetID string
}

// RequestOptions is what RequestFor needs to launch one NodeClaim.
type RequestOptions struct {
	// NodeClaim is the claim to launch: its name, labels, taints and
	// requirements (instance types, zones, capacity types, Ultra SSD).
	NodeClaim *api.NodeClaim
	// NodeClass is the claim's AKSNodeClass.
	NodeClass *api.AKSNodeClass
	// Catalogue is the node class's instance type catalogue; the claim's
	// node.kubernetes.io/instance-type requirement picks from it.
	Catalogue *instancetype.Catalogue
	// Cluster holds the cluster-wide settings.
	Cluster ClusterSettings
	// Mode is the provisioning mode ("" is aksscriptless); it must be the
	// launcher's.
	Mode imagefamily.Mode
	// Images says where node images come from and which version to boot.
	Images imagefamily.ImageOptions
	// NodeBootstrapping is required in mode bootstrappingclient.
	NodeBootstrapping NodeBootstrappingFunc
}

// RequestFor builds the launch request of a NodeClaim: the claim's instance
// types and offerings from the catalogue, the node class's disk, subnet,
// security and tags, the cluster's identities and encryption, the NIC's pod
// IP configurations, and a BootstrapFor that runs imagefamily.Generate for
// the offering the launcher picks (the image definition, kubelet reservations
// and zone and capacity-type labels depend on it). It also generates the
// bootstrap of the offering the launcher would try first (Choose), so a bad
// input fails here, before any Azure call; Request.Planned shows it.
func RequestFor(ctx context.Context, opts RequestOptions) (*Request, error) {
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	mode, err := opts.Mode.Resolve()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	types := InstanceTypesFor(opts.NodeClaim, opts.Catalogue)
	candidates := CandidatesFor(opts.NodeClaim, types)
	first, ok := Choose(candidates, nil, nil)
	if !ok {
		return nil, fmt.Errorf("%w: NodeClaim %s: no instance type with an available offering its requirements allow", ErrInvalidRequest, opts.NodeClaim.Name)
	}
	gen := generator{opts: opts, in: imagefamilyInput(opts, mode), types: types}
	planned, err := gen.generate(first)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	req := requestFrom(opts, gen.in, candidates)
	req.Planned, req.BootstrapFor = planned, gen.bootstrap
	if mode != imagefamily.ModeBootstrappingClient {
		b, err := BootstrapFrom(planned, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
		req.Image, req.CustomData, req.Machine = b.Image, b.CustomData, b.Machine
	}
	return req, nil
}

func (o RequestOptions) validate() error {
	var errs []error
	if o.NodeClaim == nil {
		errs = append(errs, errors.New("NodeClaim is required"))
	}
	if o.NodeClass == nil {
		errs = append(errs, errors.New("NodeClass is required"))
	}
	if o.Catalogue == nil {
		errs = append(errs, errors.New("Catalogue is required"))
	}
	return errors.Join(errs...)
}

// InstanceTypesFor returns the catalogue's instance types the claim's
// node.kubernetes.io/instance-type requirement allows, in catalogue order.
func InstanceTypesFor(claim *api.NodeClaim, cat *instancetype.Catalogue) []*instancetype.InstanceType {
	allowed := requirements.FromAPI(claim.Spec.Requirements).Get(api.LabelInstanceType)
	var out []*instancetype.InstanceType
	for _, it := range cat.InstanceTypes {
		if allowed.Has(it.Name) {
			out = append(out, it)
		}
	}
	return out
}

// CandidatesFor turns instance types into launch candidates keeping only the
// offerings the claim's zone and capacity-type requirements allow.
func CandidatesFor(claim *api.NodeClaim, types []*instancetype.InstanceType) []Candidate {
	reqs := requirements.FromAPI(claim.Spec.Requirements)
	zones, capacity := reqs.Get(api.LabelZone), reqs.Get(api.LabelCapacityType)
	cands := CandidatesFrom(types)
	for i := range cands {
		var kept []Offering
		for _, o := range cands[i].Offerings {
			if zones.Has(o.Zone) && capacity.Has(o.CapacityType) {
				kept = append(kept, o)
			}
		}
		cands[i].Offerings = kept
	}
	return cands
}

// imagefamilyInput is the part of imagefamily.Input every offering shares.
// The node's labels start from the claim's labels and every label its
// requirements pin down, as upstream merges them.
func imagefamilyInput(opts RequestOptions, mode imagefamily.Mode) imagefamily.Input {
	claim := opts.NodeClaim
	labels := requirements.FromAPI(claim.Spec.Requirements).Labels()
	maps.Copy(labels, claim.Labels)
	return imagefamily.Input{
		Mode: mode, NodeClass: opts.NodeClass, NodePool: claim.Labels[api.LabelNodePool], NodeClaim: claim.Name,
		Labels: labels, Taints: claim.Spec.Taints, StartupTaints: claim.Spec.StartupTaints,
		UltraSSD: imagefamily.UltraSSDRequested(claim.Spec.Requirements),
		Cluster:  opts.Cluster.Cluster, Images: opts.Images,
	}
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
		b.CustomData, b.CSE = bootstrap.NewSecret(string(hydrated.CustomData.Reveal())), bootstrap.NewSecret(string(hydrated.CSE.Reveal()))
	default:
		b.CustomData = bootstrap.NewSecret(string(out.CustomData.Reveal()))
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
func requestFrom(opts RequestOptions, in imagefamily.Input, candidates []Candidate) *Request {
	spec := &opts.NodeClass.Spec
	req := &Request{
		NodeClaimName: in.NodeClaim, NodePool: in.NodePool, Candidates: candidates,
		OSDiskSizeGB: api.DefaultOSDiskSizeGB, OSDiskEncryptionSetID: opts.Cluster.DiskEncryptionSetID,
		SubnetID: opts.Cluster.SubnetID, Identities: opts.Cluster.NodeIdentities,
		AdminUsername: opts.Cluster.AdminUsername, SSHPublicKey: opts.Cluster.SSHPublicKey,
		Tags: spec.Tags, UltraSSD: in.UltraSSD,
		PodIPConfigurations: PodIPConfigurations(opts.Cluster.Network, kubeletconfig.MaxPods(opts.NodeClass, opts.Cluster.Network)),
	}
	if spec.OSDiskSizeGB != nil {
		req.OSDiskSizeGB = *spec.OSDiskSizeGB
	}
	if spec.VNETSubnetID != nil && *spec.VNETSubnetID != "" {
		req.SubnetID = *spec.VNETSubnetID
	}
	if s := spec.Security; s != nil {
		req.EncryptionAtHost = isTrue(s.EncryptionAtHost)
		req.TrustedLaunch = TrustedLaunch{Enabled: spec.TrustedLaunch(), SecureBoot: isTrue(s.SecureBoot), VTPM: isTrue(s.VTPM)}
	}
	return req
}

// PodIPConfigurations is how many secondary IP configurations a node's NIC
// needs for its pods' addresses: maxPods - 1 with Azure CNI in node-subnet
// mode (plugin azure, no overlay), where pods take their IPs from the node's
// NIC; none with overlay, kubenet or a CNI of one's own.
func PodIPConfigurations(network api.ClusterNetwork, maxPods int32) int {
	if network.Plugin != api.NetworkPluginAzure || network.PluginMode == api.NetworkPluginModeOverlay || maxPods < 1 {
		return 0
	}
	return int(maxPods) - 1
}

// generator runs imagefamily.Generate for one offering. It keeps the claim's instance types (the
// catalogue's, shared) and builds the shape of the one size it generates for: a request lives as
// long as its launch, and a shape per allowed size (labels and three reservation lists each) held
// by every launch in flight was most of the controller's heap in a 20,000-pod burst.
type generator struct {
	opts  RequestOptions
	in    imagefamily.Input
	types []*instancetype.InstanceType
}

func (g generator) generate(c Choice) (*imagefamily.Output, error) {
	it := g.instanceType(c.Candidate.SKU)
	if it == nil {
		return nil, fmt.Errorf("instance type %s is not among the request's", c.Candidate.SKU)
	}
	in := g.in
	in.Shape, in.Zone, in.CapacityType = imagefamily.ShapeOf(it), c.Offering.Zone, c.Offering.CapacityType
	return imagefamily.Generate(in)
}

// instanceType finds the request's instance type of that name; nil when it has none.
func (g generator) instanceType(name string) *instancetype.InstanceType {
	for _, it := range g.types {
		if it != nil && it.SKU != nil && it.Name == name {
			return it
		}
	}
	return nil
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

func isTrue(b *bool) bool { return b != nil && *b }
