package instancetype

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/pricing"
)

func offeringKeys(os Offerings) []string {
	var out []string
	for _, o := range os {
		out = append(out, o.CapacityType+"@"+o.Zone)
	}
	return out
}

func TestOfferingsFixture(t *testing.T) {
	cat := build(t, fixture(t, "southcentralus"), defaultOptions(t, "southcentralus"))
	d2s := mustFind(t, cat, "Standard_D2s_v3")
	// 0.11 on-demand; spot 0.0121 (SkyPilot subset). Cheapest first; zonal before regional.
	assert.Equal(t, []string{
		"spot@southcentralus-1", "spot@southcentralus-2", "spot@southcentralus-3", "spot@0",
		"on-demand@southcentralus-1", "on-demand@southcentralus-2", "on-demand@southcentralus-3", "on-demand@0",
	}, offeringKeys(d2s.Offerings))
	prices := regionPrices(t, "southcentralus")
	onDemand, _ := prices.OnDemand("Standard_D2s_v3")
	spot, _ := prices.Spot("Standard_D2s_v3")
	assert.Equal(t, 0.11, onDemand)
	for _, o := range d2s.Offerings {
		want := onDemand
		if o.CapacityType == api.CapacityTypeSpot {
			want = spot
		}
		assert.Equal(t, want, o.VMPrice)
		assert.Equal(t, d2s.EphemeralOSDisk.PricePerHour, o.DiskPrice)
		assert.InDelta(t, want+19.71/730, o.Price, 1e-12, "VM + P10 OS disk (southcentralus uses eastus's disk prices)")
		assert.True(t, o.Available)
		assert.Equal(t, map[string]string{
			api.LabelZone:                "In [" + o.Zone + "]",
			api.LabelCapacityType:        "In [" + o.CapacityType + "]",
			api.LabelPlacementScope:      "In [" + o.PlacementScope() + "]",
			api.LabelAKSPriority:         "In [" + map[bool]string{true: "spot", false: "regular"}[o.CapacityType == "spot"] + "]",
			api.LabelAKSScaleSetPriority: "In [" + map[bool]string{true: "spot", false: "regular"}[o.CapacityType == "spot"] + "]",
			api.LabelSKUUltraSSD:         map[bool]string{true: "In [false true]", false: "In [false]"}[o.Regional()],
		}, describe(o.Requirements), o.CapacityType+"@"+o.Zone)
	}

	// B20ms is not spot capable: on-demand only, 4 zones.
	b20 := mustFind(t, cat, "Standard_B20ms")
	assert.Equal(t, []string{"on-demand@southcentralus-1", "on-demand@southcentralus-2",
		"on-demand@southcentralus-3", "on-demand@0"}, offeringKeys(b20.Offerings))
	// NC6s_v3 lists no zones in southcentralus: regional only.
	assert.Equal(t, []string{"spot@0", "on-demand@0"}, offeringKeys(mustFind(t, cat, "Standard_NC6s_v3").Offerings))
}

func TestOfferingsNoZoneRegion(t *testing.T) {
	cat := build(t, fixture(t, "westcentralus"), defaultOptions(t, "westcentralus"))
	require.NotEmpty(t, cat.InstanceTypes)
	for _, it := range cat.InstanceTypes {
		for _, o := range it.Offerings {
			assert.Equal(t, api.RegionalZone, o.Zone, it.Name)
			assert.Equal(t, api.PlacementScopeRegional, o.PlacementScope())
		}
		assert.Len(t, it.Offerings, 2, it.Name)
	}
}

func TestOfferingsZoneRestrictions(t *testing.T) {
	cat := build(t, fixture(t, "eastus"), defaultOptions(t, "eastus"))
	assert.Equal(t, []string{"spot@0", "on-demand@0"}, offeringKeys(mustFind(t, cat, "Standard_NC6s_v3").Offerings))
	nc24 := mustFind(t, cat, "Standard_NC24ads_A100_v4").Offerings
	assert.Equal(t, []string{"spot@eastus-3", "spot@0", "on-demand@eastus-3", "on-demand@0"}, offeringKeys(nc24))
}

func TestOfferingPrices(t *testing.T) {
	skus := []*armSKU{
		syntheticSKU("Standard_D4s_v5", "4", "16"),
		syntheticSKU("Standard_D4s_v99", "4", "16"), // priced nowhere, unknown
		syntheticSKU("Standard_E4s_v5", "4", "32"),
	}
	opts := defaultOptions(t, "eastus")
	opts.KnownSKUs = map[string]bool{"Standard_D4s_v5": true, "Standard_D4s_v99": true}
	cat := build(t, skus, opts)
	assert.Equal(t, []string{"Standard_D4s_v5", "Standard_D4s_v99", "Standard_E4s_v5"},
		[]string{cat.InstanceTypes[0].Name, cat.InstanceTypes[1].Name, cat.InstanceTypes[2].Name},
		"known and priced, known but unpriced, unknown last")
	for _, o := range mustFind(t, cat, "Standard_E4s_v5").Offerings {
		assert.Equal(t, pricing.MissingPrice, o.Price, "unknown sizes are priced as missing")
	}
	for _, o := range mustFind(t, cat, "Standard_D4s_v99").Offerings {
		assert.Equal(t, pricing.MissingPrice, o.Price)
	}
	want, ok := regionPrices(t, "eastus").OnDemand("Standard_D4s_v5")
	require.True(t, ok)
	cheapest, ok := mustFind(t, cat, "Standard_D4s_v5").Offerings.Cheapest()
	require.True(t, ok)
	assert.LessOrEqual(t, cheapest.Price, want)

	// No prices at all: everything missing, sorted by name.
	opts = Options{Region: "eastus", Network: api.DefaultClusterNetwork()}
	cat = build(t, skus, opts)
	assert.Equal(t, []string{"Standard_D4s_v5", "Standard_D4s_v99", "Standard_E4s_v5"}, names(cat))
}

func TestUnavailableCallback(t *testing.T) {
	var calls []string
	opts := defaultOptions(t, "eastus")
	opts.Unavailable = func(sku, zone, capacityType string) bool {
		calls = append(calls, sku+" "+zone+" "+capacityType)
		return zone == "eastus-2"
	}
	it := mustFind(t, build(t, []*armSKU{syntheticSKU("Standard_D4s_v5", "4", "16")}, opts), "Standard_D4s_v5")
	slices.Sort(calls)
	assert.Equal(t, []string{
		"Standard_D4s_v5 0 on-demand", "Standard_D4s_v5 0 spot",
		"Standard_D4s_v5 eastus-1 on-demand", "Standard_D4s_v5 eastus-1 spot",
		"Standard_D4s_v5 eastus-2 on-demand", "Standard_D4s_v5 eastus-2 spot",
		"Standard_D4s_v5 eastus-3 on-demand", "Standard_D4s_v5 eastus-3 spot",
	}, calls)
	for _, o := range it.Offerings {
		assert.Equal(t, o.Zone != "eastus-2", o.Available, o.Zone)
	}
}

func TestCompareOfferings(t *testing.T) {
	os := Offerings{
		{Zone: "0", CapacityType: "on-demand", Price: 1},
		{Zone: "eastus-2", CapacityType: "on-demand", Price: 1},
		{Zone: "eastus-1", CapacityType: "on-demand", Price: 1},
		{Zone: "0", CapacityType: "spot", Price: 1},
		{Zone: "eastus-3", CapacityType: "spot", Price: 1},
		{Zone: "eastus-3", CapacityType: "on-demand", Price: 0.5},
	}
	for i := range os {
		os[i].Available = true
	}
	slices.SortFunc(os, compareOfferings)
	assert.Equal(t, []string{"on-demand@eastus-3", "spot@eastus-3", "spot@0", "on-demand@eastus-1",
		"on-demand@eastus-2", "on-demand@0"}, offeringKeys(os))
	os[0].Available = false
	best, ok := os.Cheapest()
	require.True(t, ok)
	assert.Equal(t, "spot@eastus-3", best.CapacityType+"@"+best.Zone)
	assert.Len(t, os.Available(), 5)
}
