package instancetype

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/pricing"
)

// TestFullBillOnRealSKUs prices nodes of real eastus SKU records (ARM answers with every disk
// capability) on the embedded eastus prices: a size whose cache disk holds the 128 GB OS disk gets an
// ephemeral disk and pays for its VM only; a premium-capable size whose cache disk is too small pays
// for a Premium_LRS P10 disk as well; a size without premium storage or ephemeral support pays for a
// StandardSSD_LRS E10 disk. The disk prices are the embedded eastus figures, written out here.
func TestFullBillOnRealSKUs(t *testing.T) {
	cat := build(t, fixture(t, "eastus"), defaultOptions(t, "eastus"))
	const p10, e10 = 19.71, 9.60 // USD per disk-month, eastus (see azuredata's doc for the sources)
	tests := []struct {
		name        string
		placement   string  // "" for a managed disk
		storage     string  // managed disk type
		tier        string  // managed disk tier
		diskMonthly float64 // 0 for an ephemeral disk
	}{
		{"Standard_D64s_v3", PlacementCacheDisk, "", "", 0},            // 1,717 GB cache disk
		{"Standard_NC6s_v3", PlacementCacheDisk, "", "", 0},            // 343 GB cache disk
		{"Standard_D2s_v3", "", pricing.StoragePremiumLRS, "P10", p10}, // 53 GB cache disk: too small
		{"Standard_D2_v2", "", pricing.StorageStandardSSDLRS, "E10", e10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it := mustFind(t, cat, tc.name)
			disk := it.EphemeralOSDisk
			assert.Equal(t, tc.placement, disk.Placement)
			assert.Equal(t, tc.storage, disk.StorageAccountType)
			assert.Equal(t, tc.tier, disk.Tier)
			assert.True(t, disk.CapabilitiesKnown, "the fixture records carry disk capabilities")
			assert.True(t, disk.PriceKnown)
			vm, ok := regionPrices(t, "eastus").OnDemand(tc.name)
			require.True(t, ok)
			for _, o := range it.Offerings {
				if o.CapacityType != "on-demand" {
					continue
				}
				assert.Equal(t, vm, o.VMPrice, o.Zone)
				assert.InDelta(t, tc.diskMonthly/730, o.DiskPrice, 1e-9, o.Zone)
				assert.InDelta(t, vm+tc.diskMonthly/730, o.Price, 1e-9, "%s: the node's full price", o.Zone)
			}
		})
	}
	assert.Empty(t, cat.Notes, "eastus has its own disk prices and every fixture record its disk capabilities")
}

// The embedded full-region catalogues carry no disk capabilities; LoadDefault fills them for the
// sizes the hand-picked records describe, and the catalogue says how many remain unknown.
func TestDefaultCatalogueDiskCapabilities(t *testing.T) {
	list, err := LoadDefault("eastus")
	require.NoError(t, err)
	opts, err := DefaultOptions("eastus", defaultOptions(t, "eastus").Network)
	require.NoError(t, err)
	cat, err := list.Build(opts)
	require.NoError(t, err)

	d64 := mustFind(t, cat, "Standard_D64s_v3")
	assert.True(t, d64.EphemeralOSDisk.CapabilitiesKnown, "filled from the hand-picked record")
	assert.Equal(t, PlacementCacheDisk, d64.EphemeralOSDisk.Placement)
	d2v3 := mustFind(t, cat, "Standard_D2_v3")
	assert.Equal(t, pricing.StorageStandardSSDLRS, d2v3.EphemeralOSDisk.StorageAccountType,
		"the real record says no premium storage, over the catalogue's uniform default")
	assert.Equal(t, "E10", d2v3.EphemeralOSDisk.Tier)
	// On the full bill, D2_v3 (spot $0.01056/h + E10 $0.01315/h) now beats F2s_v2 (spot $0.009306/h
	// + P10 $0.027/h), which is cheapest on VM price alone.
	cheapest, _ := cat.InstanceTypes[0].Offerings.Cheapest()
	assert.Equal(t, "Standard_D2_v3", cat.InstanceTypes[0].Name)
	assert.InDelta(t, 0.01056+9.60/730, cheapest.Price, 1e-9)
	d4 := mustFind(t, cat, "Standard_D4s_v5")
	assert.False(t, d4.EphemeralOSDisk.CapabilitiesKnown, "no real record for this size")
	assert.Equal(t, pricing.StoragePremiumLRS, d4.EphemeralOSDisk.StorageAccountType)

	unknown := 0
	for _, it := range cat.InstanceTypes {
		if !it.EphemeralOSDisk.CapabilitiesKnown {
			unknown++
		}
	}
	require.NotEmpty(t, cat.Notes)
	assert.Contains(t, cat.Notes[0], fmt.Sprintf("%d of %d instance types have no disk capabilities in their SKU records",
		unknown, len(cat.InstanceTypes)))
	assert.Less(t, unknown, len(cat.InstanceTypes))
}
