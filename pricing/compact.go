package pricing

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/napkit/napkit/internal/azuredata"
)

//go:generate go test -run ^TestCompactPrices$ -update .

// The compact price tables are the VM prices of one region with an embedded catalogue, as
// DefaultSnapshot reads them (prices.csv with the corrections of prices-unstable.csv applied),
// written in prices.csv's layout (azuredata.CompactPrices). Why: finding one region's rows meant
// decompressing both tables (2.7 and 0.4 MB), about 10 ms of CPU in every `napkit plan`; a region's
// table is 60 KB of text that needs no decompressing. TestCompactPrices holds each file equal to
// what DefaultSnapshot makes of the full tables (and writes them with -update, which `go generate`
// runs).

// compactRegionSnapshot is DefaultRegionSnapshot(name) from the compact tables of name and
// FallbackRegion; false when either has none, and the full tables must be read.
func compactRegionSnapshot(name string) (*Snapshot, bool, error) {
	var rows []byte
	for _, region := range slices.Compact([]string{FallbackRegion, name}) {
		data, err := azuredata.CompactPrices(region)
		if err != nil {
			return nil, false, nil
		}
		if rows != nil {
			data = data[lineLen(data):] // the header once
		}
		rows = append(rows, data...)
	}
	snap, err := ParseCSV(bytes.NewReader(rows), "")
	if err != nil {
		return nil, true, fmt.Errorf("pricing: embedded compact prices of %s: %w", name, err)
	}
	snap, err = withEmbeddedDisks(snap)
	return snap, true, err
}

// writeCompactPrices writes region's VM prices from snap in prices.csv's layout, SKUs sorted, an
// empty spot where none is known: ParseCSV reads it back to the same prices.
func writeCompactPrices(snap *Snapshot, region string) []byte {
	table := snap.regions[region]
	b := []byte(tableHeader + "\n")
	for _, sku := range slices.Sorted(maps.Keys(table)) {
		p := table[sku]
		b = append(append(append(b, region...), ','), sku...)
		b = strconv.AppendFloat(append(b, ','), p.OnDemand, 'f', -1, 64)
		b = append(b, ',')
		if p.SpotKnown {
			b = strconv.AppendFloat(b, p.Spot, 'f', -1, 64)
		}
		b = append(b, '\n')
	}
	return b
}
