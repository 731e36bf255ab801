package instancetype

import (
	"slices"

	"github.com/napkit/napkit/pricing"
)

// Ephemeral OS disk placements, as ARM spells them in SupportedEphemeralOSDiskPlacements and in a VM's
// diffDiskSettings.placement.
const (
	PlacementCacheDisk    = "CacheDisk"
	PlacementResourceDisk = "ResourceDisk"
	PlacementNvmeDisk     = "NvmeDisk"
)

const (
	bytesPerMiB = 1 << 20
	bytesPerGB  = 1_000_000_000
)

// EphemeralDisk is the OS disk napkit chooses for an instance type: ephemeral (on a local disk, free)
// or managed (billed per month by tier).
type EphemeralDisk struct {
	// Placement is where the ephemeral OS disk lives (CacheDisk, ResourceDisk or NvmeDisk); empty means
	// a managed OS disk.
	Placement string `json:"placement,omitempty"`
	// SizeGB is the OS disk size (the node class's osDiskSizeGB), in decimal GB.
	SizeGB int64 `json:"sizeGB"`
	// LocalDiskGB is the size of the local disk holding it, 0 for a managed disk.
	LocalDiskGB int64 `json:"localDiskGB,omitempty"`
	// StorageAccountType is the managed disk's type, which the launcher names in the VM body:
	// Premium_LRS on sizes capable of premium storage (PremiumIO), else StandardSSD_LRS. Empty for an
	// ephemeral disk.
	StorageAccountType string `json:"storageAccountType,omitempty"`
	// Tier is the managed disk's billing tier (P10, E10, ...); empty when ephemeral or unpriced.
	Tier string `json:"tier,omitempty"`
	// PricePerHour is the managed disk's price in USD per hour (monthly price / 730); 0 when ephemeral.
	PricePerHour float64 `json:"pricePerHour"`
	// PriceKnown is false for a managed disk the region's disk prices do not cover: it is then priced
	// at 0 and the catalogue says so (Catalogue.Notes).
	PriceKnown bool `json:"priceKnown"`
	// PriceUnverified marks a managed-disk price its table says was not checked against a source
	// (pricing.DiskPrice.Unverified); the catalogue says so in Notes.
	PriceUnverified bool `json:"priceUnverified,omitempty"`
	// CapabilitiesKnown mirrors SKU.DiskCapabilitiesKnown: when false, the disk is managed because the
	// SKU record said nothing about local disks, not because none is large enough.
	CapabilitiesKnown bool `json:"capabilitiesKnown"`
}

// Ephemeral reports whether the OS disk is local rather than managed.
func (d EphemeralDisk) Ephemeral() bool { return d.Placement != "" }

// FindMaxEphemeral returns the largest ephemeral OS disk the SKU is advertised for, in decimal GB, and
// where it lives, using Karpenter's rule (which the sku-storage-ephemeralos-maxsize label reports):
// nothing unless EphemeralOSDiskSupported; else the NVMe disk if it is an allowed placement; else the
// cache disk; else the resource (temp) disk. A nil SKU has none.
func FindMaxEphemeral(sku *SKU) (sizeGB int64, placement string) {
	switch {
	case sku == nil || !sku.EphemeralOSDiskSupported:
		return 0, ""
	case sku.NvmeDiskSizeInMiB > 0 && slices.Contains(sku.SupportedEphemeralOSDiskPlacements, PlacementNvmeDisk):
		return sku.NvmeDiskSizeInMiB * bytesPerMiB / bytesPerGB, PlacementNvmeDisk
	case sku.CachedDiskBytes > 0:
		return sku.CachedDiskBytes / bytesPerGB, PlacementCacheDisk
	case sku.MaxResourceVolumeMB > 0:
		return sku.MaxResourceVolumeMB * bytesPerMiB / bytesPerGB, PlacementResourceDisk
	}
	return 0, ""
}

// ChooseOSDisk picks where an OS disk of osDiskSizeGB goes. Unlike Karpenter, which only tries the
// placement FindMaxEphemeral names and falls back to a managed disk, napkit takes the first allowed
// placement, in the order CacheDisk, ResourceDisk, NvmeDisk, that is large enough: a Standard_B20ms has
// a 32 GB cache but a 171 GB temp disk, so a 128 GB OS disk still gets the speed of a local disk.
func ChooseOSDisk(sku *SKU, osDiskSizeGB int64) EphemeralDisk {
	managed := EphemeralDisk{SizeGB: osDiskSizeGB, StorageAccountType: pricing.StorageStandardSSDLRS}
	if sku != nil {
		managed.CapabilitiesKnown = sku.DiskCapabilitiesKnown
		if sku.PremiumIO {
			managed.StorageAccountType = pricing.StoragePremiumLRS
		}
	}
	if sku == nil || !sku.EphemeralOSDiskSupported {
		return managed
	}
	for _, c := range []struct {
		placement string
		sizeGB    int64
	}{
		{PlacementCacheDisk, sku.CachedDiskBytes / bytesPerGB},
		{PlacementResourceDisk, sku.MaxResourceVolumeMB * bytesPerMiB / bytesPerGB},
		{PlacementNvmeDisk, sku.NvmeDiskSizeInMiB * bytesPerMiB / bytesPerGB},
	} {
		if c.sizeGB > 0 && osDiskSizeGB <= c.sizeGB && slices.Contains(sku.SupportedEphemeralOSDiskPlacements, c.placement) {
			return EphemeralDisk{Placement: c.placement, SizeGB: osDiskSizeGB, LocalDiskGB: c.sizeGB,
				PriceKnown: true, CapabilitiesKnown: true}
		}
	}
	return managed
}

// priced returns d with its managed-disk price from prices (an ephemeral disk costs nothing extra).
func (d EphemeralDisk) priced(prices pricing.RegionPrices) EphemeralDisk {
	if d.Ephemeral() {
		return d
	}
	if p, ok := prices.ManagedDisk(d.StorageAccountType, d.SizeGB); ok {
		d.Tier, d.PricePerHour, d.PriceKnown, d.PriceUnverified = p.Tier, roundPrice(p.PerHour), true, p.Unverified
	}
	return d
}
