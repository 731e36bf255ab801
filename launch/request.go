package launch

import (
	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
)

// Capacity types and the regional zone, as the api package spells them.
const (
	CapacityTypeSpot     = api.CapacityTypeSpot
	CapacityTypeOnDemand = api.CapacityTypeOnDemand
	RegionalZone         = api.RegionalZone
)

// MaxNICIPConfigurations is Azure's limit of IP configurations (private IP
// addresses) on one network interface.
const MaxNICIPConfigurations = 256

// DefaultAdminUsername is the Linux admin user when a Request names none.
const DefaultAdminUsername = "azureuser"

// Request is everything one launch needs. It is a plain value so that callers
// (tests, other clouds' tooling) can fill it by hand; RequestFor fills it from
// the instancetype catalogue and imagefamily.
type Request struct {
	// NodeClaimName names the VM, NIC, OS disk and computer: aks-<NodeClaimName>.
	NodeClaimName string
	// NodePool is written to the karpenter.sh_nodepool tag.
	NodePool string
	// Candidates are the instance types that fit, each with its offerings.
	Candidates []Candidate
	// Image is the node image to boot.
	Image ImageRef
	// CustomData is the base64 bootstrap payload. It carries a bootstrap
	// token, so it is never logged, formatted or put in an error.
	CustomData bootstrap.Secret
	// CSE is the custom script extension's command (bootstrappingclient mode
	// only). It carries the bootstrap token too.
	CSE bootstrap.Secret
	// Machine is the AKS Machine body (Machine API modes only); the launcher
	// sets its size, zone, priority and tags for the offering it picks.
	Machine *bootstrap.Machine
	// BootstrapFor, when set, supplies Image, CustomData, CSE and Machine for
	// the offering the launcher picked, in place of the four fields above:
	// the image definition, kubelet reservations and node labels all depend
	// on the size, zone and capacity type, which are only known then.
	BootstrapFor BootstrapFunc `json:"-"`
	// OSDiskSizeGB is the OS disk size; the disk is ephemeral when the chosen
	// candidate's ephemeral placement holds it, else managed. Machine API
	// modes take the size from the Machine body instead.
	OSDiskSizeGB int32
	// OSDiskEncryptionSetID, when set, encrypts a managed OS disk with it.
	OSDiskEncryptionSetID string
	// SubnetID is the NIC's subnet resource ID.
	SubnetID string
	// NetworkSecurityGroupID, when set, is attached to the NIC. When empty on
	// a custom VNET, the launcher's options or its NSG lookup supply it.
	NetworkSecurityGroupID string
	// LoadBalancerBackendPools are backend pool IDs the NIC joins. When empty,
	// the launcher's options or its load balancer lookup supply them.
	LoadBalancerBackendPools []string
	// Identities are user-assigned managed identity resource IDs.
	Identities []string
	// AdminUsername defaults to DefaultAdminUsername.
	AdminUsername string
	// SSHPublicKey is the admin user's only credential; passwords are disabled.
	SSHPublicKey string
	// EncryptionAtHost enables host-based encryption.
	EncryptionAtHost bool
	// TrustedLaunch configures the Trusted Launch security type.
	TrustedLaunch TrustedLaunch
	// UltraSSD enables the Ultra SSD capability.
	UltraSSD bool
	// PodIPConfigurations is how many secondary IP configurations
	// (ipconfig1, ipconfig2, ...) the NIC gets besides its primary one, for
	// pods' addresses; see PodIPConfigurations.
	PodIPConfigurations int
	// Planned is what the request's first candidate and offering boot, as
	// RequestFor generated it (nil for a request built by hand). The
	// launcher generates again for the offering it picks.
	Planned *imagefamily.Output `json:"-"`
	// Tags are the AKSNodeClass tags; "/" in keys becomes "_" and the
	// launcher's own tags win on conflict.
	Tags map[string]string
}

// Candidate is one instance type option with its offerings, as the
// instancetype catalogue describes it.
type Candidate struct {
	// SKU is the ARM VM size, e.g. Standard_D2s_v5.
	SKU string
	// Family is the ARM quota family, e.g. standardDSv5Family.
	Family string
	// VCPUs is the SKU's vCPU count; the family threshold rule compares it.
	VCPUs int
	// AcceleratedNetworking enables accelerated networking on the NIC.
	AcceleratedNetworking bool
	// EphemeralOSDiskPlacement is where an ephemeral OS disk goes
	// (CacheDisk, ResourceDisk, NvmeDisk); empty means managed only.
	EphemeralOSDiskPlacement string
	// EphemeralOSDiskMaxGB is the largest ephemeral OS disk that placement holds.
	EphemeralOSDiskMaxGB int32
	// OSDiskStorageAccountType is the storage account type of a managed OS disk, named in the VM body
	// so that the disk launched is the disk the plan priced: Premium_LRS on sizes capable of premium
	// storage, else StandardSSD_LRS (instancetype.ChooseOSDisk). Empty leaves it to Azure.
	OSDiskStorageAccountType string
	// Offerings are the (zone, capacity type) places the SKU can launch.
	Offerings []Offering
}

// Offering is one place a Candidate can launch.
type Offering struct {
	// Zone is the zone label, "<region>-<n>", or RegionalZone ("0").
	Zone string
	// CapacityType is CapacityTypeSpot or CapacityTypeOnDemand.
	CapacityType string
	// Price is the hourly price used to rank offerings.
	Price float64
	// Available is the catalogue's availability (quota, capability).
	Available bool
}

// ImageRef is a node image: exactly one of the two forms is set.
type ImageRef struct {
	// CommunityGalleryImageID is a /CommunityGalleries/... version ID.
	CommunityGalleryImageID string
	// SharedGalleryID is a /subscriptions/.../galleries/... version ID.
	SharedGalleryID string
}

// TrustedLaunch selects the TrustedLaunch security type when Enabled.
type TrustedLaunch struct {
	Enabled    bool
	SecureBoot bool
	VTPM       bool
}

// UsesEphemeralOSDisk reports whether the candidate's ephemeral placement
// holds a disk of sizeGB.
func (c Candidate) UsesEphemeralOSDisk(sizeGB int32) bool {
	return c.EphemeralOSDiskPlacement != "" && c.EphemeralOSDiskMaxGB >= sizeGB
}

// AdminUser returns the admin user, defaulted.
func (r *Request) AdminUser() string {
	if r.AdminUsername == "" {
		return DefaultAdminUsername
	}
	return r.AdminUsername
}
