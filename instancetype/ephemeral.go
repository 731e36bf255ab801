package instancetype

import "slices"

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

// EphemeralDisk is the OS disk napkit chooses for an instance type.
type EphemeralDisk struct {
	// Placement is where the ephemeral OS disk lives (CacheDisk, ResourceDisk or NvmeDisk); empty means
	// a managed OS disk.
	Placement string `json:"placement,omitempty"`
	// SizeGB is the OS disk size (the node class's osDiskSizeGB), in decimal GB.
	SizeGB int64 `json:"sizeGB"`
	// LocalDiskGB is the size of the local disk holding it, 0 for a managed disk.
	LocalDiskGB int64 `json:"localDiskGB,omitempty"`
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
	managed := EphemeralDisk{SizeGB: osDiskSizeGB}
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
			return EphemeralDisk{Placement: c.placement, SizeGB: osDiskSizeGB, LocalDiskGB: c.sizeGB}
		}
	}
	return managed
}
