package pricing

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/internal/azuredata"
)

func defaultSnapshot(t *testing.T) *Snapshot {
	t.Helper()
	snap, err := DefaultSnapshot()
	require.NoError(t, err)
	return snap
}

func TestDefaultSnapshotPrices(t *testing.T) {
	snap := defaultSnapshot(t)
	tests := []struct {
		name   string
		region string
		sku    string
		want   Price
	}{
		{"D2s_v3 eastus", "eastus", "Standard_D2s_v3", Price{OnDemand: 0.096, Spot: 0.01056, SpotKnown: true}},
		{"D4s_v5 eastus", "eastus", "Standard_D4s_v5", Price{OnDemand: 0.192, Spot: 0.02112, SpotKnown: true}},
		// prices.csv says 0.178, a leaked Windows price; prices-unstable.csv's min_seen is the Linux price.
		{"unstable row corrected", "eastus", "Standard_D2as_v5", Price{OnDemand: 0.086, Spot: 0.00946, SpotKnown: true}},
		{"unstable row without spot", "australiacentral", "Standard_D2as_v5", Price{OnDemand: 0.108, Spot: 0.108}},
		{"D2s_v3 southcentralus", "southcentralus", "Standard_D2s_v3", Price{OnDemand: 0.11, Spot: 0.0121, SpotKnown: true}},
		{"no spot in the table", "eastus", "Standard_B2s", Price{OnDemand: 0.0416, Spot: 0.0416}},
		{"GPU", "eastus", "Standard_NC6s_v3", Price{OnDemand: 3.06, Spot: 0.3978, SpotKnown: true}},
		{"trailing spaces in the table", "eastus", "Standard_NM16ads_MA35D", Price{OnDemand: 1.95, Spot: 1.95}},
		{"Basic tier", "australiacentral", "Basic_A0", Price{OnDemand: 0.024, Spot: 0.024}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prices, note := snap.Region(tc.region)
			assert.Empty(t, note.Message)
			got, ok := prices.Lookup(tc.sku)
			require.True(t, ok)
			assert.InDelta(t, tc.want.OnDemand, got.OnDemand, 1e-12)
			assert.InDelta(t, tc.want.Spot, got.Spot, 1e-12)
			assert.Equal(t, tc.want.SpotKnown, got.SpotKnown)
		})
	}
}

func TestDefaultSnapshotShape(t *testing.T) {
	snap := defaultSnapshot(t)
	regions := snap.Regions()
	assert.Len(t, regions, 57)
	assert.IsIncreasing(t, regions)
	rows, spots := 0, 0
	for _, r := range regions {
		prices, _ := snap.Region(r)
		rows += prices.Len()
		for _, p := range prices.prices {
			if p.SpotKnown {
				spots++
			}
		}
	}
	assert.Equal(t, 65053, rows, "every row of prices.csv")
	assert.Equal(t, 277, spots, "the spot values of prices.csv")

	prices, note := snap.Region("mars")
	assert.Equal(t, "no prices for region mars; using eastus", note.Message)
	od, ok := prices.OnDemand("Standard_D2s_v3")
	require.True(t, ok)
	assert.Equal(t, 0.096, od)
}

// Every row of prices-unstable.csv is in prices.csv and ends up at its min_seen.
func TestDefaultSnapshotAppliesEveryFix(t *testing.T) {
	data, err := azuredata.UnstablePrices()
	require.NoError(t, err)
	fixes, err := parseUnstable(bytes.NewReader(data))
	require.NoError(t, err)
	require.Len(t, fixes, 3748)
	snap := defaultSnapshot(t)
	for _, f := range fixes {
		prices, note := snap.Region(f.region)
		require.Empty(t, note.Message)
		got, ok := prices.OnDemand(f.sku)
		require.True(t, ok, "%s %s", f.region, f.sku)
		assert.Equal(t, f.onDemand, got, "%s %s", f.region, f.sku)
	}
}

func TestDefaultSnapshotIsDeterministic(t *testing.T) {
	assert.Equal(t, defaultSnapshot(t), defaultSnapshot(t))
}

func TestParseUnstableErrors(t *testing.T) {
	tests := []struct {
		name, input string
		wantLine    int
	}{
		{"missing column", "region,sku,on_demand_usd_per_hour\n", 1},
		{"bad min_seen", "region,sku,min_seen\neastus,Standard_B1s,0\n", 2},
		{"empty", "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseUnstable(bytes.NewBufferString(tc.input))
			require.ErrorIs(t, err, ErrMalformed)
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.wantLine, pe.Line)
		})
	}
}
