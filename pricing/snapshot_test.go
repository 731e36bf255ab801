package pricing

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testSnapshot(t *testing.T) *Snapshot {
	t.Helper()
	snap, err := NewSnapshot(map[string]map[string]Price{
		"eastus": {
			"Standard_D2s_v3": {OnDemand: 0.096, Spot: 0.01056, SpotKnown: true},
			"Standard_B1s":    {OnDemand: 0.0104},
		},
		"WestUS2": {"Standard_D2s_v3": {OnDemand: 0.1}},
	})
	require.NoError(t, err)
	return snap
}

func TestSnapshotRegion(t *testing.T) {
	snap := testSnapshot(t)
	tests := []struct {
		name         string
		region       string
		sku          string
		wantRegion   string
		wantPrice    Price
		wantFound    bool
		wantNote     string
		wantOnDemand float64
		wantSpot     float64
	}{
		{name: "spot known", region: "eastus", sku: "Standard_D2s_v3", wantRegion: "eastus",
			wantPrice: Price{OnDemand: 0.096, Spot: 0.01056, SpotKnown: true}, wantFound: true,
			wantOnDemand: 0.096, wantSpot: 0.01056},
		{name: "spot priced at on-demand", region: "eastus", sku: "Standard_B1s", wantRegion: "eastus",
			wantPrice: Price{OnDemand: 0.0104, Spot: 0.0104}, wantFound: true, wantOnDemand: 0.0104, wantSpot: 0.0104},
		{name: "region names ignore case", region: "WESTUS2", sku: "Standard_D2s_v3", wantRegion: "westus2",
			wantPrice: Price{OnDemand: 0.1, Spot: 0.1}, wantFound: true, wantOnDemand: 0.1, wantSpot: 0.1},
		{name: "missing region falls back", region: "mars", sku: "Standard_D2s_v3", wantRegion: "eastus",
			wantPrice: Price{OnDemand: 0.096, Spot: 0.01056, SpotKnown: true}, wantFound: true,
			wantNote: "no prices for region mars; using eastus", wantOnDemand: 0.096, wantSpot: 0.01056},
		{name: "missing SKU", region: "eastus", sku: "Standard_Nope", wantRegion: "eastus"},
		{name: "SKU names are exact", region: "eastus", sku: "standard_d2s_v3", wantRegion: "eastus"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prices, note := snap.Region(tc.region)
			assert.Equal(t, tc.wantNote, note.Message)
			assert.Equal(t, tc.wantRegion, prices.Region())
			p, ok := prices.Lookup(tc.sku)
			assert.Equal(t, tc.wantFound, ok)
			assert.Equal(t, tc.wantPrice, p)
			od, ok := prices.OnDemand(tc.sku)
			assert.Equal(t, tc.wantFound, ok)
			assert.Equal(t, tc.wantOnDemand, od)
			spot, ok := prices.Spot(tc.sku)
			assert.Equal(t, tc.wantFound, ok)
			assert.Equal(t, tc.wantSpot, spot)
		})
	}
}

func TestSnapshotWithoutFallback(t *testing.T) {
	snap, err := NewSnapshot(map[string]map[string]Price{"westus2": {"Standard_B1s": {OnDemand: 0.01}}})
	require.NoError(t, err)
	prices, note := snap.Region("mars")
	assert.Equal(t, "no prices for region mars nor for the fallback region eastus", note.Message)
	assert.Zero(t, prices.Len())
	_, ok := prices.Lookup("Standard_B1s")
	assert.False(t, ok)

	var none *Snapshot
	prices, note = none.Region("eastus")
	assert.NotEmpty(t, note.Message)
	assert.Zero(t, prices.Len())
	assert.Nil(t, none.Regions())
}

func TestZeroRegionPrices(t *testing.T) {
	var prices RegionPrices
	_, ok := prices.Lookup("Standard_B1s")
	assert.False(t, ok)
	_, ok = prices.Spot("Standard_B1s")
	assert.False(t, ok)
	assert.Equal(t, "", prices.Region())
}

func TestSnapshotRegions(t *testing.T) {
	snap := testSnapshot(t)
	regions := snap.Regions()
	assert.Equal(t, []string{"eastus", "westus2"}, regions)
	regions[0] = "changed"
	assert.Equal(t, []string{"eastus", "westus2"}, snap.Regions(), "the caller's slice is a copy")
}

func TestNewSnapshotCopiesInput(t *testing.T) {
	in := map[string]map[string]Price{"eastus": {"Standard_B1s": {OnDemand: 0.01}}}
	snap, err := NewSnapshot(in)
	require.NoError(t, err)
	in["eastus"]["Standard_B1s"] = Price{OnDemand: 5}
	prices, _ := snap.Region("eastus")
	od, _ := prices.OnDemand("Standard_B1s")
	assert.Equal(t, 0.01, od)
}

func TestNewSnapshotErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     map[string]map[string]Price
		wantIs error
	}{
		{"bad region", map[string]map[string]Price{"east us": {}}, ErrInvalidRegion},
		{"zero", map[string]map[string]Price{"eastus": {"Standard_B1s": {}}}, ErrInvalidPrice},
		{"NaN", map[string]map[string]Price{"eastus": {"Standard_B1s": {OnDemand: math.NaN()}}}, ErrInvalidPrice},
		{"infinite", map[string]map[string]Price{"eastus": {"Standard_B1s": {OnDemand: math.Inf(1)}}}, ErrInvalidPrice},
		{"bad known spot", map[string]map[string]Price{"eastus": {"Standard_B1s": {OnDemand: 1, Spot: -1, SpotKnown: true}}}, ErrInvalidPrice},
		{"empty SKU", map[string]map[string]Price{"eastus": {"": {OnDemand: 1}}}, nil},
		{"region twice", map[string]map[string]Price{"eastus": {}, "EastUS": {}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewSnapshot(tc.in)
			require.Error(t, err)
			if tc.wantIs != nil {
				assert.ErrorIs(t, err, tc.wantIs)
			}
		})
	}
}
