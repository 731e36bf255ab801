package pricing

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Column names of the two CSV layouts ParseCSV reads.
const (
	colRegion   = "region"
	colSKU      = "sku"
	colOnDemand = "on_demand_usd_per_hour"
	colSpot     = "spot_usd_per_hour"

	// tableHeader is the header of prices.csv: every region, with optional spot prices.
	tableHeader = colRegion + "," + colSKU + "," + colOnDemand + "," + colSpot
	// catalogueHeader is the header of catalog-<region>-prices.csv: one region, on-demand only.
	catalogueHeader = colSKU + "," + colOnDemand
)

// maxValueInError bounds ParseError.Value, in bytes, so that a garbage line cannot flood a log.
const maxValueInError = 64

// ParseCSV reads a price table in one of two layouts, chosen by its header line:
//
//	region,sku,on_demand_usd_per_hour,spot_usd_per_hour   (an empty spot means none is known)
//	sku,on_demand_usd_per_hour                            (every row is in defaultRegion)
//
// defaultRegion is used, and checked, only for the second layout. Spaces around values are ignored
// (the embedded table has SKU names with trailing spaces) and region names are lower-cased.
//
// An error about the content is a *ParseError naming the line, column and value; it wraps
// ErrMalformed, and also ErrInvalidPrice for a zero, negative, NaN or infinite price. A (region, SKU)
// pair listed twice is an error, because silently keeping either row could keep the wrong price.
func ParseCSV(r io.Reader, defaultRegion string) (*Snapshot, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true // rows are copied into Prices, so the reader may reuse its buffers
	lay, err := readHeader(cr, defaultRegion)
	if err != nil {
		return nil, err
	}
	regions := make(map[string]map[string]Price)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return newSnapshot(regions), nil
		}
		if err != nil {
			return nil, readError(err)
		}
		if err := addRow(regions, lay, cr, rec); err != nil {
			return nil, err
		}
	}
}

// layout says where each value is in a row.
type layout struct {
	region        int    // index of the region column, or -1 to use defaultRegion
	defaultRegion string // region of every row when region is -1
	sku, onDemand int
	spot          int // index of the spot column, or -1 when the layout has none
}

func readHeader(cr *csv.Reader, defaultRegion string) (layout, error) {
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return layout{}, &ParseError{Line: 1, Err: fmt.Errorf("empty input; want the header %q or %q",
			tableHeader, catalogueHeader)}
	}
	if err != nil {
		return layout{}, readError(err)
	}
	// A byte-order mark is what spreadsheet programs put in front of a CSV they save.
	header[0] = strings.TrimPrefix(header[0], "\ufeff")
	// Compare fields, not the joined line: a quoted "sku,on_demand_usd_per_hour" is one column.
	switch {
	case slices.Equal(header, []string{colRegion, colSKU, colOnDemand, colSpot}):
		return layout{region: 0, sku: 1, onDemand: 2, spot: 3}, nil
	case slices.Equal(header, []string{colSKU, colOnDemand}):
		name, err := regionName(defaultRegion)
		if err != nil {
			return layout{}, fmt.Errorf("pricing: default region for a %q table: %w", catalogueHeader, err)
		}
		return layout{region: -1, defaultRegion: name, sku: 0, onDemand: 1, spot: -1}, nil
	}
	return layout{}, &ParseError{Line: 1, Value: shorten(strings.Join(header, ",")),
		Err: fmt.Errorf("unknown header; want %q or %q", tableHeader, catalogueHeader)}
}

// readError turns an encoding/csv syntax error into a *ParseError and passes other errors (from
// the underlying reader) through, since they say nothing about the input's shape.
func readError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{Line: pe.Line, Err: pe.Err}
	}
	return fmt.Errorf("pricing: reading price table: %w", err)
}

// addRow parses one record and stores it in regions.
func addRow(regions map[string]map[string]Price, lay layout, cr *csv.Reader, rec []string) error {
	fail := func(col int, name string, cause error) error {
		line, _ := cr.FieldPos(col)
		return &ParseError{Line: line, Column: name, Value: shorten(rec[col]), Err: cause}
	}
	region := lay.defaultRegion
	if lay.region >= 0 {
		region = strings.ToLower(strings.TrimSpace(rec[lay.region]))
		if !validRegion(region) {
			return fail(lay.region, colRegion, ErrInvalidRegion)
		}
	}
	sku := strings.TrimSpace(rec[lay.sku])
	if sku == "" {
		return fail(lay.sku, colSKU, errors.New("missing SKU name"))
	}
	p, col, err := rowPrice(rec, lay)
	if err != nil {
		return fail(col, columnName(lay, col), err)
	}
	table := regions[region]
	if table == nil {
		table = make(map[string]Price)
		regions[region] = table
	}
	if _, dup := table[sku]; dup {
		return fail(lay.sku, colSKU, fmt.Errorf("duplicate row for region %s", region))
	}
	table[sku] = p.normalised()
	return nil
}

// rowPrice parses the price columns of rec; on failure it also returns the bad column's index.
func rowPrice(rec []string, lay layout) (Price, int, error) {
	onDemand, err := parsePrice(rec[lay.onDemand])
	if err != nil {
		return Price{}, lay.onDemand, err
	}
	p := Price{OnDemand: onDemand}
	if lay.spot < 0 || strings.TrimSpace(rec[lay.spot]) == "" {
		return p, 0, nil
	}
	if p.Spot, err = parsePrice(rec[lay.spot]); err != nil {
		return Price{}, lay.spot, err
	}
	p.SpotKnown = true
	return p, 0, nil
}

func columnName(lay layout, col int) string {
	if col == lay.spot {
		return colSpot
	}
	return colOnDemand
}

// parsePrice parses one price cell, rejecting values that are not usable prices.
func parsePrice(field string) (float64, error) {
	s := strings.TrimSpace(field)
	if s == "" {
		return 0, errors.New("missing price")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) {
			return 0, ne.Err // the value is already in the ParseError, so keep only the reason
		}
		return 0, err
	}
	if !validPrice(v) {
		return 0, ErrInvalidPrice
	}
	return v, nil
}

func shorten(s string) string {
	if len(s) <= maxValueInError {
		return s
	}
	return s[:maxValueInError] + "..."
}
