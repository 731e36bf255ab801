package imagefamily

import (
	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/kubeletconfig"
	corev1 "k8s.io/api/core/v1"
)

// Input is everything Generate needs to describe one node: the mode, the node class, the VM size and
// placement chosen for it, the NodeClaim's labels and taints, and the cluster.
//
// Cluster.BootstrapToken is a bootstrap.Secret, so an Input prints without revealing it.
type Input struct {
	// Mode is the provisioning mode; "" means ModeScriptless.
	Mode Mode
	// NodeClass is the AKSNodeClass; nil means every default.
	NodeClass *api.AKSNodeClass
	// Shape is the VM size (see ShapeOf).
	Shape NodeShape
	// Zone is the zone label of the chosen offering ("eastus-1"), or "" / "0" for a regional VM.
	Zone string
	// CapacityType is on-demand (default) or spot.
	CapacityType string
	// NodePool and NodeClaim name the pool and the claim; the claim name also names the AKS Machine.
	NodePool  string
	NodeClaim string
	// Labels are the NodeClaim's labels (template labels and single-valued requirements); they are
	// merged over the labels napkit derives, as Karpenter does.
	Labels map[string]string
	// Taints stay on the node; StartupTaints are removed by their owners once the node is ready.
	Taints        []corev1.Taint
	StartupTaints []corev1.Taint
	// UltraSSD says the VM gets the Ultra SSD capability: only when the NodeClaim requires
	// karpenter.azure.com/sku-storage-ultra-ssd=true (see UltraSSDRequested).
	UltraSSD bool
	// Cluster holds the cluster-wide settings.
	Cluster bootstrap.Cluster
	// Images says where images come from and which version to boot.
	Images ImageOptions
	// ReservationPolicy is used only when Shape.Reservation is nil; "" is kubeletconfig.PolicyMaxPods.
	ReservationPolicy kubeletconfig.Policy
}

// ImageOptions choose the gallery and the image version.
type ImageOptions struct {
	// Gallery is the reference form; "" means CommunityGallery for the VM modes and
	// SharedImageGallery for the Machine API modes, which accept nothing else.
	Gallery GalleryKind
	// SIGSubscriptionID is the subscription of AKS's shared image gallery.
	SIGSubscriptionID string
	// Version pins the image version; when "", the newest of Available is used.
	Version string
	// Available lists published versions (any definitions).
	Available []AvailableVersion
}

// Default OS disk size when the node class does not set one (the CRD default).
const defaultOSDiskSizeGB int32 = 128

// osDiskSizeGB returns spec.osDiskSizeGB or the CRD default.
func osDiskSizeGB(nc *api.AKSNodeClass) int32 {
	if nc != nil && nc.Spec.OSDiskSizeGB != nil {
		return *nc.Spec.OSDiskSizeGB
	}
	return defaultOSDiskSizeGB
}

// isSpot reports whether the capacity type is spot.
func (in Input) isSpot() bool { return in.CapacityType == api.CapacityTypeSpot }
