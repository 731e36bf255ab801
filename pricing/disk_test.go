package pricing

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const diskHeader = "region,storage_account_type,tier,size_gib,usd_per_month,verified\n"

func TestManagedDiskTiers(t *testing.T) {
	snap, err := DefaultSnapshot()
	require.NoError(t, err)
	eastus, _ := snap.Region("eastus")
	tests := []struct {
		storage  string
		sizeGB   int64
		wantTier string
		wantOK   bool
	}{
		{StoragePremiumLRS, 128, "P10", true}, // the AKSNodeClass default osDiskSizeGB
		{StoragePremiumLRS, 100, "P10", true}, // billed at the next tier up
		{StoragePremiumLRS, 129, "P15", true},
		{StoragePremiumLRS, 30, "P4", true}, // the CRD's minimum osDiskSizeGB
		{StoragePremiumLRS, 2048, "P40", true},
		{StoragePremiumLRS, 2049, "", false}, // above every embedded tier
		{StorageStandardSSDLRS, 128, "E10", true},
		{StorageStandardLRS, 128, "", false}, // no Standard HDD table embedded
		{StoragePremiumLRS, 0, "", false},
	}
	for _, tc := range tests {
		got, ok := eastus.ManagedDisk(tc.storage, tc.sizeGB)
		assert.Equal(t, tc.wantOK, ok, "%s %d GB", tc.storage, tc.sizeGB)
		assert.Equal(t, tc.wantTier, got.Tier, "%s %d GB", tc.storage, tc.sizeGB)
	}
	p10, _ := eastus.ManagedDisk(StoragePremiumLRS, 128)
	assert.Equal(t, DiskPrice{StorageAccountType: StoragePremiumLRS, Tier: "P10", TierSizeGiB: 128, PerMonth: 19.71,
		PerHour: 19.71 / 730, Region: "eastus"}, p10, "eastus P10: infracost's kubernetes_cluster golden, 3 × 19.71 = 59.13")
	e10, _ := eastus.ManagedDisk(StorageStandardSSDLRS, 128)
	assert.Equal(t, 9.60, e10.PerMonth, "eastus E10: Retail Prices API quote of 2026-10-07")
}

func TestManagedDiskRegionFallback(t *testing.T) {
	snap, err := DefaultSnapshot()
	require.NoError(t, err)
	assert.Equal(t, []string{"eastus", "westus2"}, snap.DiskRegions())

	westus2, _ := snap.Region("westus2")
	assert.Empty(t, westus2.DiskNote())
	assert.Equal(t, "westus2", westus2.DiskRegion())

	north, note := snap.Region("northeurope")
	assert.Empty(t, note.Message, "VM prices exist for northeurope")
	assert.Equal(t, "eastus", north.DiskRegion())
	assert.Equal(t, "no managed-disk prices for region northeurope; using eastus", north.DiskNote())
	p10, ok := north.ManagedDisk(StoragePremiumLRS, 128)
	require.True(t, ok)
	assert.Equal(t, "eastus", p10.Region)

	empty, err := NewSnapshot(nil)
	require.NoError(t, err)
	none, _ := empty.Region("eastus")
	_, ok = none.ManagedDisk(StoragePremiumLRS, 128)
	assert.False(t, ok)
	assert.Equal(t, "no managed-disk prices for region eastus", none.DiskNote())
}

func TestParseDiskCSVRejects(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"missing column", "region,tier,size_gib,usd_per_month\n", "column storage_account_type: missing column"},
		{"unknown tier", "eastus,Premium_LRS,P11,128,19.71,yes\n", `value "P11"`},
		{"tier of another type", "eastus,StandardSSD_LRS,P10,128,19.71,yes\n", "belongs to Premium_LRS"},
		{"wrong size", "eastus,Premium_LRS,P10,100,19.71,yes\n", "is 128 GiB, not 100"},
		{"zero price", "eastus,Premium_LRS,P10,128,0,yes\n", "greater than zero"},
		{"size not a number", "eastus,Premium_LRS,P10,big,19.71,yes\n", `column size_gib, value "big"`},
		{"bad region", "east us,Premium_LRS,P10,128,19.71,yes\n", "invalid region name"},
		{"repeated tier", "eastus,Premium_LRS,P10,128,19.71,yes\neastus,Premium_LRS,P10,128,20,yes\n", "line 3"},
		{"verified neither yes nor no", "eastus,Premium_LRS,P10,128,19.71,maybe\n", `column verified, value "maybe": want "yes" or "no"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.body
			if !strings.HasPrefix(body, "region,") {
				body = diskHeader + body
			}
			_, err := ParseDiskCSV(strings.NewReader(body))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrMalformed)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// The client keeps only the monthly LRS tier meters of the disk products, by storage type.
func TestFetchDisksKeepsTierMeters(t *testing.T) {
	api := newFakeAPI(t, map[string][]fakePage{"eastus" + diskKey: {
		{items: diskItems("eastus", 19.71, 9.6)},
		{items: []map[string]any{linux("eastus", "Standard_D2s_v3", "D2s v3", 0.096)}}, // not a disk product
	}})
	tables, err := api.client(t, ClientOptions{}).FetchDisks(context.Background(), "eastus")
	require.NoError(t, err)
	assert.Equal(t, DiskTables{
		StoragePremiumLRS:     {{Name: "P10", SizeGiB: 128, PerMonth: 19.71}},
		StorageStandardSSDLRS: {{Name: "E10", SizeGiB: 128, PerMonth: 9.6}},
	}, tables)
	filter := api.requestLog()[0].URL.Query().Get("$filter")
	assert.Contains(t, filter, "serviceName eq 'Storage' and armRegionName eq 'eastus'")
	assert.Contains(t, filter, "productName eq 'Premium SSD Managed Disks'")
}

func TestWithDiskPricesChecksTiers(t *testing.T) {
	snap, err := NewSnapshot(map[string]map[string]Price{"eastus": {"Standard_D2s_v3": {OnDemand: 0.096}}})
	require.NoError(t, err)
	_, err = snap.WithDiskPrices(map[string]DiskTables{"eastus": {StoragePremiumLRS: {{Name: "P10", SizeGiB: 64, PerMonth: 1}}}})
	assert.ErrorContains(t, err, "tier P10 is 128 GiB, not 64")
	withDisks, err := snap.WithDiskPrices(map[string]DiskTables{"EastUS": {StoragePremiumLRS: {{Name: "P10", SizeGiB: 128, PerMonth: 20}}}})
	require.NoError(t, err)
	rp, _ := withDisks.Region("eastus")
	got, ok := rp.ManagedDisk(StoragePremiumLRS, 128)
	assert.True(t, ok)
	assert.Equal(t, 20.0, got.PerMonth)
	rp, _ = snap.Region("eastus")
	_, ok = rp.ManagedDisk(StoragePremiumLRS, 128)
	assert.False(t, ok, "the original snapshot is unchanged")
}

// FuzzParseDiskCSV checks that ParseDiskCSV never panics, that its errors wrap ErrMalformed, and that
// every table it returns is sorted by size with known tiers of the right size.
func FuzzParseDiskCSV(f *testing.F) {
	f.Add([]byte(diskHeader + "eastus,Premium_LRS,P10,128,19.71,yes\n"))
	f.Add([]byte(diskHeader + "eastus,StandardSSD_LRS,E30,1024,76.80,yes\neastus,StandardSSD_LRS,E4,32,2.4,no\n"))
	f.Add([]byte("region,storage_account_type,tier,size_gib,usd_per_month\nx,,,,\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		tables, err := ParseDiskCSV(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error does not wrap ErrMalformed: %v", err)
			}
			return
		}
		for region, byType := range tables {
			for storageType, tiers := range byType {
				for i, tier := range tiers {
					size, typ, ok := TierSize(tier.Name)
					if !ok || typ != storageType || size != tier.SizeGiB || !validPrice(tier.PerMonth) {
						t.Fatalf("%s %s: bad tier %+v", region, storageType, tier)
					}
					if i > 0 && tiers[i-1].SizeGiB >= tier.SizeGiB {
						t.Fatalf("%s %s: not sorted: %+v", region, storageType, tiers)
					}
				}
			}
		}
	})
}

// TestDiskPricesVerified: the verified column reaches every price taken from the row, so that output
// can say which figures were not checked; a table without the column (a user's, the live API's) is
// verified. The embedded table marks westus2 unverified (copied from eastus) and eastus P10 verified.
func TestDiskPricesVerified(t *testing.T) {
	tests := []struct {
		name, body     string
		wantUnverified bool
	}{
		{"yes", diskHeader + "eastus,Premium_LRS,P10,128,19.71,yes\n", false},
		{"no", diskHeader + "eastus,Premium_LRS,P10,128,19.71,no\n", true},
		{"no column", "region,storage_account_type,tier,size_gib,usd_per_month\neastus,Premium_LRS,P10,128,19.71\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tables, err := ParseDiskCSV(strings.NewReader(tc.body))
			require.NoError(t, err)
			assert.Equal(t, tc.wantUnverified, tables["eastus"][StoragePremiumLRS][0].Unverified)
			empty, err := NewSnapshot(nil)
			require.NoError(t, err)
			snap, err := empty.WithDiskPrices(tables)
			require.NoError(t, err)
			region, _ := snap.Region("eastus")
			p, ok := region.ManagedDisk(StoragePremiumLRS, 128)
			require.True(t, ok)
			assert.Equal(t, tc.wantUnverified, p.Unverified)
		})
	}
	snap, err := DefaultSnapshot()
	require.NoError(t, err)
	for region, want := range map[string]bool{"eastus": false, "westus2": true} {
		prices, _ := snap.Region(region)
		p, ok := prices.ManagedDisk(StoragePremiumLRS, 128)
		require.True(t, ok)
		assert.Equal(t, want, p.Unverified, "%s P10", region)
	}
}
