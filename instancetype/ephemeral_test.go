package instancetype

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/napkit/napkit/pricing"
)

// TestFindMaxEphemeral is reference case 2.
func TestFindMaxEphemeral(t *testing.T) {
	tests := []struct {
		name      string
		sizeGB    int64
		placement string
	}{
		{"Standard_B20ms", 32, PlacementCacheDisk},
		{"Standard_D128ds_v6", 7559, PlacementNvmeDisk},
		{"Standard_D16plds_v5", 429, PlacementCacheDisk},
		{"Standard_D2as_v6", 0, ""},
		{"Standard_NC24ads_A100_v4", 274, PlacementCacheDisk}, // NVMe present but not an allowed placement
		{"Standard_D64s_v3", 1717, PlacementCacheDisk},
		{"Standard_A0", 0, ""},
		{"Standard_D2_v2", 0, ""},
		{"Standard_D2s_v3", 53, PlacementCacheDisk},
		{"Standard_E4d_v5", 161, PlacementResourceDisk}, // no cache disk: the temp disk
		{"Standard_NC6s_v3", 343, PlacementCacheDisk},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			size, placement := FindMaxEphemeral(fixtureSKU(t, "southcentralus", tc.name))
			assert.Equal(t, tc.sizeGB, size)
			assert.Equal(t, tc.placement, placement)
		})
	}
	size, placement := FindMaxEphemeral(nil)
	assert.Zero(t, size)
	assert.Empty(t, placement)
}

// TestChooseOSDisk covers reference case 3 and where napkit deliberately differs from Karpenter
// (B20ms: Karpenter uses a managed disk, napkit the 171 GB temp disk).
func TestChooseOSDisk(t *testing.T) {
	tests := []struct {
		name   string
		osDisk int64
		want   EphemeralDisk
	}{
		{"Standard_D64s_v3", 128, eph(PlacementCacheDisk, 128, 1717)},
		{"Standard_D64s_v3", 256, eph(PlacementCacheDisk, 256, 1717)},
		{"Standard_D2s_v3", 128, managed(128, pricing.StoragePremiumLRS)},
		{"Standard_D2s_v3", 50, eph(PlacementCacheDisk, 50, 53)},
		{"Standard_B20ms", 128, eph(PlacementResourceDisk, 128, 171)},
		{"Standard_B20ms", 30, eph(PlacementCacheDisk, 30, 32)},
		{"Standard_B20ms", 200, managed(200, pricing.StoragePremiumLRS)},
		{"Standard_D128ds_v6", 100, eph(PlacementNvmeDisk, 100, 7559)},
		{"Standard_NC24ads_A100_v4", 512, managed(512, pricing.StoragePremiumLRS)}, // NVMe is not an allowed placement
		{"Standard_NC6s_v3", 128, eph(PlacementCacheDisk, 128, 343)},
		{"Standard_D2_v2", 30, managed(30, pricing.StorageStandardSSDLRS)}, // ephemeral OS disk not supported
		{"Standard_D2as_v6", 30, managed(30, pricing.StoragePremiumLRS)},
	}
	for _, tc := range tests {
		got := ChooseOSDisk(fixtureSKU(t, "southcentralus", tc.name), tc.osDisk)
		assert.Equal(t, tc.want, got, "%s at %d GB", tc.name, tc.osDisk)
		assert.Equal(t, tc.want.Placement != "", got.Ephemeral())
	}
	assert.Equal(t, EphemeralDisk{SizeGB: 128, StorageAccountType: pricing.StorageStandardSSDLRS}, ChooseOSDisk(nil, 128),
		"nothing known: a Standard SSD managed disk, capabilities unknown")
}

// eph is an ephemeral OS disk of sizeGB on a local disk of localGB: nothing to price.
func eph(placement string, sizeGB, localGB int64) EphemeralDisk {
	return EphemeralDisk{Placement: placement, SizeGB: sizeGB, LocalDiskGB: localGB, PriceKnown: true, CapabilitiesKnown: true}
}

// managed is a managed OS disk of a SKU whose record reports its disk capabilities, not yet priced.
func managed(sizeGB int64, storageType string) EphemeralDisk {
	return EphemeralDisk{SizeGB: sizeGB, StorageAccountType: storageType, CapabilitiesKnown: true}
}
