package instancetype

import (
	"fmt"
	"slices"

	"github.com/napkit/napkit/internal/azuredata"
)

// fillDiskCapabilities copies the disk capabilities of the embedded hand-picked SKU records (real ARM
// answers, see azuredata) onto the SKUs that lack them and have the same name: ephemeral OS disk
// support and placements, cache, temp and NVMe disk sizes, and PremiumIO (which decides the managed
// disk's type; the catalogues carry it only as a uniform default). A VM size's local disks and
// premium-storage support are part of its hardware, the same in every region. The embedded
// full-region catalogues carry no disk capabilities; without this every size would be planned with
// a managed OS disk even where Azure would give it an ephemeral one. SKUs are changed in place:
// LoadDefault owns them.
func fillDiskCapabilities(skus []*SKU) error {
	known, err := fixtureDiskCapabilities()
	if err != nil {
		return err
	}
	for _, s := range skus {
		if s == nil || s.DiskCapabilitiesKnown {
			continue
		}
		if real, ok := known[s.Name]; ok {
			s.EphemeralOSDiskSupported = real.EphemeralOSDiskSupported
			s.SupportedEphemeralOSDiskPlacements = slices.Clone(real.SupportedEphemeralOSDiskPlacements)
			s.CachedDiskBytes, s.MaxResourceVolumeMB = real.CachedDiskBytes, real.MaxResourceVolumeMB
			s.NvmeDiskSizeInMiB, s.PremiumIO = real.NvmeDiskSizeInMiB, real.PremiumIO
			s.DiskCapabilitiesKnown = true
		}
	}
	return nil
}

// fixtureDiskCapabilities returns, by name, every embedded hand-picked record that reports its disk
// capabilities (the first region in name order wins; they agree).
func fixtureDiskCapabilities() (map[string]*SKU, error) {
	out := map[string]*SKU{}
	for _, region := range azuredata.FixtureRegions() {
		list, err := LoadFixture(region)
		if err != nil {
			return nil, fmt.Errorf("instancetype: disk capabilities: %w", err)
		}
		for _, s := range list.SKUs {
			if _, seen := out[s.Name]; !seen && s.DiskCapabilitiesKnown {
				out[s.Name] = s
			}
		}
	}
	return out, nil
}
