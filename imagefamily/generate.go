package imagefamily

import (
	"fmt"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/kubeletconfig"
	corev1 "k8s.io/api/core/v1"
)

// plan is everything Generate resolves before rendering the mode's payload.
type plan struct {
	in      Input
	mode    Mode
	family  FamilyInput
	image   Image
	maxPods int32
	kubelet *kubeletconfig.Config
	labels  map[string]string
	taints  []corev1.Taint
	startup []corev1.Taint
	gpu     *bootstrap.GPUDriver
	// localDNS is spec.localDNS with Preferred resolved (AKSNodeClass.LocalDNSForWire).
	localDNS *api.LocalDNS
}

// Generate describes the node a NodeClaim would boot: the image, the kubelet configuration, the node
// labels and taints, and the bootstrap payload of the mode (the customData script, the bootstrapping
// request body, or the AKS Machine body). It is a pure function: the same Input gives byte-identical
// output.
//
// Generate refuses a capacity type other than on-demand or spot and a zone outside
// Cluster.Location; CheckPlacement, which also sees the NodePool and the catalogue, is the full check
// to run before it.
//
// Errors wrap ErrInvalid, ErrUnsupported, ErrNoImage or ErrNoImageVersion from this package,
// bootstrap.ErrInvalid or bootstrap.ErrUnsupported, or kubeletconfig.ErrInvalid, and name what was
// rejected. No error contains the bootstrap token.
func Generate(in Input) (*Output, error) {
	p, err := resolve(in)
	if err != nil {
		return nil, err
	}
	out := &Output{
		Mode: p.mode, Image: p.image, KubeletFlags: p.kubelet.Flags(),
		NodeLabels: p.labels, KubeletNodeLabels: bootstrap.KubeletLabels(p.labels),
		Taints: append(append([]corev1.Taint{}, p.taints...), p.startup...), Kubelet: p.kubelet,
	}
	switch p.mode {
	case ModeScriptless:
		err = renderScriptless(p, out)
	case ModeBootstrappingClient:
		err = renderProvision(p, out)
	default:
		err = renderMachine(p, out)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// resolve runs every decision shared by the modes.
func resolve(in Input) (*plan, error) {
	mode, err := in.Mode.Resolve()
	if err != nil {
		return nil, err
	}
	if err := in.Shape.validate(); err != nil {
		return nil, err
	}
	// Every mode's payload and the network labels name the subnet the node's NIC is really in.
	in.Cluster.SubnetID = in.NodeClass.SubnetID(in.Cluster.SubnetID)
	if err := checkLocalDNS(in, mode); err != nil {
		return nil, err
	}
	if err := checkInputPlacement(in); err != nil {
		return nil, err
	}
	p := &plan{localDNS: in.NodeClass.LocalDNSForWire(), in: in, mode: mode, family: FamilyInputFor(in.NodeClass, in.Cluster.KubernetesVersion, mode)}
	family, err := ResolveFamily(p.family)
	if err != nil {
		return nil, err
	}
	if p.image, err = resolveNodeImage(in, mode, family, p.family); err != nil {
		return nil, err
	}
	if p.kubelet, p.maxPods, err = kubeletFor(in); err != nil {
		return nil, err
	}
	network, err := bootstrap.Network(bootstrap.NetworkInput{
		Network: in.Cluster.Network, SubnetName: subnetName(in.Cluster.SubnetID),
		VNETGUID: in.Cluster.VNETGUID, KubernetesVersion: in.Cluster.KubernetesVersion,
	})
	if err != nil {
		return nil, err
	}
	if family.IsWindows() {
		// Cilium does not run on Windows nodes, so they carry no eBPF dataplane label.
		delete(network.Labels, bootstrap.LabelEBPFDataplane)
	}
	p.labels = nodeLabels(labelContext{in: in, family: family, fips: p.family.FIPS, network: network})
	p.taints, p.startup = nodeTaints(in.Taints, in.StartupTaints)
	if in.Shape.nvidiaDriverInstall(in.NodeClass) && !family.IsWindows() {
		d := bootstrap.DriverForSKU(in.Shape.SKUName)
		p.gpu = &d
	}
	return p, nil
}

// resolveNodeImage picks the image; the Machine API modes boot only shared-gallery images, so they
// default to it and refuse a community gallery.
func resolveNodeImage(in Input, mode Mode, f Family, fam FamilyInput) (Image, error) {
	gallery := in.Images.Gallery
	if mode.IsMachineAPI() {
		if gallery == CommunityGallery {
			return Image{}, newError(ErrUnsupported, "gallery", string(gallery),
				"mode %s boots AKS node image versions, which live in the shared image gallery", mode)
		}
		gallery = SharedImageGallery
	}
	return ResolveImage(ImageInput{
		Family: f, Variant: VariantOf(fam.FIPS, fam.TrustedLaunch),
		Arch: in.Shape.Arch, HyperVGenerations: in.Shape.HyperVGenerations,
		Gallery: gallery, SIGSubscriptionID: in.Images.SIGSubscriptionID,
		Version: in.Images.Version, Available: in.Images.Available,
	})
}

// kubeletFor builds the kubelet configuration through kubeletconfig, the single source of the pod
// limit, reservations and eviction thresholds.
func kubeletFor(in Input) (*kubeletconfig.Config, int32, error) {
	maxPods := kubeletconfig.MaxPods(in.NodeClass, in.Cluster.Network)
	res, err := reservationFor(in, maxPods)
	if err != nil {
		return nil, 0, err
	}
	cfg, err := kubeletconfig.Build(kubeletconfig.BuildInput{
		NodeClass: in.NodeClass, Reservation: res, MaxPods: maxPods, ClusterDNS: in.Cluster.ClusterDNS,
	})
	if err != nil {
		return nil, 0, fmt.Errorf("kubelet configuration: %w", err)
	}
	return cfg, maxPods, nil
}

func reservationFor(in Input, maxPods int32) (kubeletconfig.Reservation, error) {
	if in.Shape.Reservation != nil {
		return *in.Shape.Reservation, nil
	}
	res, err := kubeletconfig.Reserve(kubeletconfig.ReservationInput{
		VCPUs: in.Shape.VCPUs, MemoryMiB: in.Shape.MemoryGiB * 1024, MaxPods: maxPods, Policy: in.ReservationPolicy,
	})
	if err != nil {
		return res, fmt.Errorf("kubelet reservation: %w", err)
	}
	return res, nil
}

// checkLocalDNS refuses a node whose LocalDNS is enabled but cannot be: the scriptless bootstrap has
// no way to configure it, and it needs 4 vCPUs and 244 MiB (the catalogue keeps smaller sizes out).
func checkLocalDNS(in Input, mode Mode) error {
	if !in.NodeClass.LocalDNSEnabled() {
		return nil
	}
	if mode == ModeScriptless {
		return newError(ErrUnsupported, "spec.localDNS.mode", string(in.NodeClass.Spec.LocalDNS.Mode),
			"LocalDNS is enabled, but mode %s cannot configure it; use %s or a Machine API mode", mode, ModeBootstrappingClient)
	}
	if in.Shape.VCPUs < localDNSMinVCPUs || in.Shape.MemoryGiB*1024 < localDNSMinMemoryMiB {
		return newError(ErrUnsupported, "shape.SKUName", in.Shape.SKUName,
			"LocalDNS needs %d vCPUs and %d MiB", localDNSMinVCPUs, localDNSMinMemoryMiB)
	}
	return nil
}

// subnetName is the last segment of a subnet ID, or "" when the ID does not parse (the bootstrap
// renderers report that error with the field name).
func subnetName(id string) string {
	s, err := bootstrap.ParseSubnetID(id)
	if err != nil {
		return ""
	}
	return s.Name
}

// securitySettings returns the node class's secure boot, vTPM and encryption-at-host settings.
func securitySettings(nc *api.AKSNodeClass) (secureBoot, vtpm, encryptionAtHost bool) {
	if nc == nil || nc.Spec.Security == nil {
		return false, false, false
	}
	s := nc.Spec.Security
	return isTrue(s.SecureBoot), isTrue(s.VTPM), isTrue(s.EncryptionAtHost)
}
