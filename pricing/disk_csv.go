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

// diskColumns are the columns ParseDiskCSV needs, found by name; others are ignored. The optional
// verified column (yes or no) marks a figure not checked against a source (DiskTier.Unverified).
var diskColumns = []string{"region", "storage_account_type", "tier", "size_gib", "usd_per_month"}

const verifiedColumn = "verified"

// ParseDiskCSV reads a managed-disk price table with the header
// region,storage_account_type,tier,size_gib,usd_per_month[,...] (the layout of azuredata's
// disk-prices.csv) into tables by region. Errors are *ParseError values naming the line and column;
// a tier whose size or storage type contradicts Azure's tier names, a repeated tier and an invalid
// price are errors. An optional verified column (yes, or no for a figure not checked against a
// source) sets DiskTier.Unverified; without it every row counts as verified.
func ParseDiskCSV(r io.Reader) (map[string]DiskTables, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &ParseError{Line: 1, Err: errors.New("empty input; want a header")}
	}
	if err != nil {
		return nil, readError(err)
	}
	cols := make([]int, len(diskColumns))
	for i, name := range diskColumns {
		if cols[i] = slices.Index(header, name); cols[i] < 0 {
			return nil, &ParseError{Line: 1, Column: name, Err: errors.New("missing column")}
		}
	}
	builders := map[string]*diskBuilder{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, readError(err)
		}
		if err := addDiskRow(builders, cr, rec, cols, slices.Index(header, verifiedColumn)); err != nil {
			return nil, err
		}
	}
	out := make(map[string]DiskTables, len(builders))
	for region, b := range builders {
		out[region] = b.done()
	}
	return out, nil
}

func addDiskRow(builders map[string]*diskBuilder, cr *csv.Reader, rec []string, cols []int, verifiedCol int) error {
	field := func(i int) string { return strings.TrimSpace(rec[cols[i]]) }
	fail := func(i int, err error) error {
		line, _ := cr.FieldPos(cols[i])
		return &ParseError{Line: line, Column: diskColumns[i], Value: shorten(rec[cols[i]]), Err: err}
	}
	region, err := regionName(field(0))
	if err != nil {
		return fail(0, err)
	}
	size, err := strconv.ParseInt(field(3), 10, 64)
	if err != nil {
		return fail(3, errors.New("want a whole number of GiB"))
	}
	price, err := parsePrice(field(4))
	if err != nil {
		return fail(4, err)
	}
	unverified, err := unverifiedField(rec, verifiedCol)
	if err != nil {
		line, _ := cr.FieldPos(verifiedCol)
		return &ParseError{Line: line, Column: verifiedColumn, Value: shorten(rec[verifiedCol]), Err: err}
	}
	b := builders[region]
	if b == nil {
		b = newDiskBuilder()
		builders[region] = b
	}
	if err := b.add(field(1), DiskTier{Name: field(2), SizeGiB: size, PerMonth: price, Unverified: unverified}); err != nil {
		return fail(2, fmt.Errorf("region %s: %w", region, err))
	}
	return nil
}

// unverifiedField reads the verified column of a row: yes or no; absent means verified.
func unverifiedField(rec []string, col int) (bool, error) {
	if col < 0 {
		return false, nil
	}
	switch strings.TrimSpace(rec[col]) {
	case "yes":
		return false, nil
	case "no":
		return true, nil
	}
	return false, errors.New(`want "yes" or "no"`)
}
