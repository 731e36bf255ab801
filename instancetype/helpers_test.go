package instancetype

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/internal/azuredata"
	"github.com/napkit/napkit/pricing"
)

// defaultSnapshot parses the embedded price table once for all tests.
var defaultSnapshot = sync.OnceValues(pricing.DefaultSnapshot)

func regionPrices(t testing.TB, region string) pricing.RegionPrices {
	t.Helper()
	snap, err := defaultSnapshot()
	require.NoError(t, err)
	prices, _ := snap.Region(region)
	return prices
}

// fixture returns the hand-picked SKU records of region.
func fixture(t testing.TB, region string) []*armSKU {
	t.Helper()
	data, err := azuredata.Fixture(region)
	require.NoError(t, err)
	skus, err := parseARMSKUs(data)
	require.NoError(t, err)
	return skus
}

// catalog returns the embedded full-region records of region.
func catalog(t testing.TB, region string) []*armSKU {
	t.Helper()
	data, err := azuredata.Catalog(region)
	require.NoError(t, err)
	skus, err := parseARMSKUs(data)
	require.NoError(t, err)
	return skus
}

func fixtureRecord(t testing.TB, region, name string) *armSKU {
	t.Helper()
	for _, raw := range fixture(t, region) {
		if deref(raw.Name) == name {
			return raw
		}
	}
	t.Fatalf("no %s in the %s fixture", name, region)
	return nil
}

func fixtureSKU(t testing.TB, region, name string) *SKU {
	t.Helper()
	sku, err := readARMSKU(fixtureRecord(t, region, name), region)
	require.NoError(t, err)
	return sku
}

// defaultOptions are what the section 2.8 worked examples assume: overlay networking (maxPods 250),
// overhead 0.075, 128 GB OS disk, the region's embedded prices, every size known.
func defaultOptions(t testing.TB, region string) Options {
	return Options{Region: region, Network: api.DefaultClusterNetwork(), Prices: regionPrices(t, region)}
}

// build reads the records for opts.Region and builds their catalogue.
func build(t testing.TB, records []*armSKU, opts Options) *Catalogue {
	t.Helper()
	cat, err := readARMSKUs(records, opts.Region).Build(opts)
	require.NoError(t, err)
	return cat
}

func mustFind(t testing.TB, cat *Catalogue, name string) *InstanceType {
	t.Helper()
	it, ok := cat.Find(name)
	require.True(t, ok, "%s is not in the catalogue; excluded: %v", name, exclusionOf(cat, name))
	return it
}

func exclusionOf(cat *Catalogue, name string) *Excluded {
	for i := range cat.Excluded {
		if cat.Excluded[i].Name == name {
			return &cat.Excluded[i]
		}
	}
	return nil
}

// syntheticSKU is an ARM record for a size the fixtures lack (the "public" rows of section 2.8):
// zonal in 1-3, spot-capable, no local disks.
func syntheticSKU(name string, vcpus, memoryGB string, extra ...string) *armSKU {
	caps := []string{"vCPUs", vcpus, "MemoryGB", memoryGB, "CpuArchitectureType", "x64",
		"HyperVGenerations", "V1,V2", "LowPriorityCapable", "True", "PremiumIO", "True",
		"AcceleratedNetworkingEnabled", "True"}
	caps = append(caps, extra...)
	sku := &armSKU{
		Name:         ptr(name),
		Size:         ptr(sizeFromName(name)),
		Family:       ptr("syntheticFamily"),
		ResourceType: ptr("virtualMachines"),
		Locations:    []*string{ptr("eastus")},
		LocationInfo: []*armLocationInfo{{
			Location: ptr("eastus"), Zones: []*string{ptr("1"), ptr("2"), ptr("3")},
		}},
	}
	for i := 0; i+1 < len(caps); i += 2 {
		sku.Capabilities = append(sku.Capabilities, &armCapability{Name: ptr(caps[i]), Value: ptr(caps[i+1])})
	}
	return sku
}

func ptr[T any](v T) *T { return &v }
