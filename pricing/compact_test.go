package pricing

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/internal/azuredata"
)

var update = flag.Bool("update", false, "rewrite the generated compact price tables under internal/azuredata")

// TestCompactPrices holds the compact table of every region with an embedded catalogue
// byte-identical to what writeCompactPrices makes of the full embedded tables now, and
// DefaultRegionSnapshot's reading of it equal to reading the full tables. -update (what `go
// generate ./pricing` runs) rewrites the files.
func TestCompactPrices(t *testing.T) {
	full, err := DefaultSnapshot()
	require.NoError(t, err)
	regions := azuredata.CatalogRegions()
	require.Contains(t, regions, FallbackRegion, "every compact table needs the fallback region's")
	for _, region := range regions {
		t.Run(region, func(t *testing.T) {
			want := writeCompactPrices(full, region)
			path := filepath.Join("..", "internal", "azuredata", "prices-"+region+".csv")
			if *update {
				// The embedded copy is compiled in only on the next run, so -update checks the
				// bytes it wrote: they parse back to the region's prices in the full tables.
				require.NoError(t, os.WriteFile(path, want, 0o644))
				written, err := ParseCSV(bytes.NewReader(want), "")
				require.NoError(t, err)
				assert.Equal(t, full.regions[region], written.regions[region])
				return
			}
			got, err := azuredata.CompactPrices(region)
			require.NoError(t, err, "run go generate ./pricing")
			require.Equal(t, string(want), string(got), "%s is stale: run go generate ./pricing", path)
			compact, ok, err := compactRegionSnapshot(region)
			require.NoError(t, err)
			require.True(t, ok)
			fromFull, err := readDefaultRegion(region)
			require.NoError(t, err)
			assert.Equal(t, fromFull, compact)
		})
	}
	_, ok, err := compactRegionSnapshot("westeurope")
	assert.False(t, ok, "a region without a catalogue reads the full tables")
	assert.NoError(t, err)
}
