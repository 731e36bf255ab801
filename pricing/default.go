package pricing

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/napkit/napkit/internal/azuredata"
)

// DefaultSnapshot parses the price tables embedded in package azuredata: Linux pay-as-you-go prices
// for 57 regions from Karpenter's Azure provider (2026-06-18), with a few older spot prices, and the
// managed-disk tier prices of eastus and westus2 (see azuredata's doc for their sources; other
// regions fall back to eastus's disk prices, see Snapshot.Region).
//
// It corrects one known fault of that table. When the Retail Prices API lists more than one
// Linux-looking meter for a VM size, Karpenter's generator keeps whichever it sees last, so for some
// (region, SKU) pairs the table holds a Windows price (Standard_D2as_v5 in eastus: 0.178 where the
// Linux price is 0.086). The rows whose value flipped between historical snapshots are listed in the
// embedded prices-unstable.csv; for those, DefaultSnapshot uses min_seen, the lowest value seen, which
// is the Linux price. A spot price of such a row is kept as it is, since it comes from another source.
//
// Every call parses the data afresh (about a tenth of a second); callers keep the result, which is
// immutable.
func DefaultSnapshot() (*Snapshot, error) { return readDefault(nil) }

// readDefault is DefaultSnapshot over the rows of the embedded tables that keep accepts (all
// when keep is nil).
func readDefault(keep func(line []byte) bool) (*Snapshot, error) {
	table, err := azuredata.Prices()
	if err != nil {
		return nil, fmt.Errorf("pricing: %w", err)
	}
	snap, err := ParseCSV(bytes.NewReader(filterRows(table, keep)), "")
	if err != nil {
		return nil, fmt.Errorf("pricing: embedded prices.csv: %w", err)
	}
	unstable, err := azuredata.UnstablePrices()
	if err != nil {
		return nil, fmt.Errorf("pricing: %w", err)
	}
	fixes, err := parseUnstable(bytes.NewReader(filterRows(unstable, keep)))
	if err != nil {
		return nil, fmt.Errorf("pricing: embedded prices-unstable.csv: %w", err)
	}
	applyFixes(snap, fixes)
	return withEmbeddedDisks(snap)
}

// withEmbeddedDisks adds the embedded managed-disk prices to snap, which it changes in place: it is
// only called before snap is returned to anyone.
func withEmbeddedDisks(snap *Snapshot) (*Snapshot, error) {
	disks, err := ParseDiskCSV(bytes.NewReader(azuredata.DiskPrices()))
	if err != nil {
		return nil, fmt.Errorf("pricing: embedded disk-prices.csv: %w", err)
	}
	snap.disks = disks
	return snap, nil
}

// fix is one on-demand price correction from prices-unstable.csv.
type fix struct {
	region, sku string
	onDemand    float64
}

// parseUnstable reads region, sku and min_seen from prices-unstable.csv, finding the columns by
// name so that the table's other columns may change.
func parseUnstable(r io.Reader) ([]fix, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &ParseError{Line: 1, Err: errors.New("empty input; want a header")}
	}
	if err != nil {
		return nil, readError(err)
	}
	cols := make([]int, 3)
	for i, name := range []string{colRegion, colSKU, "min_seen"} {
		if cols[i] = slices.Index(header, name); cols[i] < 0 {
			return nil, &ParseError{Line: 1, Column: name, Err: errors.New("missing column")}
		}
	}
	var fixes []fix
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return fixes, nil
		}
		if err != nil {
			return nil, readError(err)
		}
		v, err := parsePrice(rec[cols[2]])
		if err != nil {
			line, _ := cr.FieldPos(cols[2])
			return nil, &ParseError{Line: line, Column: "min_seen", Value: shorten(rec[cols[2]]), Err: err}
		}
		region := strings.ToLower(strings.TrimSpace(rec[cols[0]]))
		fixes = append(fixes, fix{region: region, sku: strings.TrimSpace(rec[cols[1]]), onDemand: v})
	}
}

// applyFixes sets the on-demand price of each fixed row. It changes snap in place, so it is only
// called before snap is returned to anyone. Rows absent from snap are skipped: there is no price
// to correct, and a price seen only in history is too stale to add.
func applyFixes(snap *Snapshot, fixes []fix) {
	for _, f := range fixes {
		table := snap.regions[f.region]
		p, ok := table[f.sku]
		if !ok {
			continue
		}
		p.OnDemand = f.onDemand
		if !p.SpotKnown {
			p.Spot = f.onDemand
		}
		table[f.sku] = p
	}
}
