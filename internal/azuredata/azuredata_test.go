package azuredata

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegions(t *testing.T) {
	assert.Equal(t, []string{"eastus", "westus2"}, CatalogRegions())
	assert.Equal(t, []string{"eastus", "southcentralus", "westcentralus"}, FixtureRegions())
}

func TestCatalogsParse(t *testing.T) {
	tests := []struct {
		read  func(string) ([]byte, error)
		name  string
		count int
	}{
		{Catalog, "eastus", 1293},
		{Catalog, "westus2", 1194},
		{Fixture, "eastus", 17},
		{Fixture, "southcentralus", 20},
		{Fixture, "westcentralus", 12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := tc.read(tc.name)
			require.NoError(t, err)
			var list struct {
				Value []map[string]any `json:"value"`
			}
			require.NoError(t, json.Unmarshal(data, &list))
			assert.Len(t, list.Value, tc.count)
		})
	}
}

func TestMissingRegion(t *testing.T) {
	_, err := Catalog("mars")
	require.ErrorIs(t, err, ErrNotEmbedded)
	assert.Contains(t, err.Error(), "mars")
}

func TestTables(t *testing.T) {
	for name, read := range map[string]func() ([]byte, error){
		"region,sku,on_demand_usd_per_hour,spot_usd_per_hour": Prices,
		"region,sku,on_demand_usd_per_hour,min_seen":          UnstablePrices,
		"name,family,discovered_on":                           KnownSKUs,
	} {
		data, err := read()
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(data), name), "header of %q", name)
	}
}
