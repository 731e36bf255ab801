package pricing

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/internal/azuredata"
)

// TestDefaultRegionSnapshot: for every embedded region, for a region written in capitals and for
// one without prices (which falls back), the one-region snapshot prices as the full one does.
func TestDefaultRegionSnapshot(t *testing.T) {
	for _, read := range []func() ([]byte, error){azuredata.Prices, azuredata.UnstablePrices} {
		table, err := read()
		require.NoError(t, err)
		require.False(t, bytes.ContainsRune(table, '"'), "filterRows reads lines as rows: no quoted fields")
	}
	full, err := DefaultSnapshot()
	require.NoError(t, err)
	regions := append(full.Regions(), "EastUS", "mars")
	require.Greater(t, len(regions), 50)
	for _, region := range regions {
		t.Run(region, func(t *testing.T) {
			one, err := DefaultRegionSnapshot(region)
			require.NoError(t, err)
			wantPrices, wantNote := full.Region(region)
			gotPrices, gotNote := one.Region(region)
			assert.Equal(t, wantNote, gotNote)
			assert.Equal(t, wantPrices, gotPrices)
		})
	}
	one, err := DefaultRegionSnapshot("westus2")
	require.NoError(t, err)
	assert.Equal(t, []string{"eastus", "westus2"}, one.Regions(), "the region and the fallback region alone")
}

func BenchmarkDefaultRegionSnapshot(b *testing.B) {
	for b.Loop() {
		if _, err := DefaultRegionSnapshot("eastus"); err != nil {
			b.Fatal(err)
		}
	}
}
