package azuredata

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
)

//go:embed *.gz
var files embed.FS

// compact holds the plain-text forms other packages generate from the files above (see
// CompactCatalog and CompactPrices), for the commands that would otherwise parse the large files
// on every run.
//
//go:embed *.tsv prices-*.csv
var compact embed.FS

// ErrNotEmbedded is returned when no snapshot is embedded for the region asked for.
var ErrNotEmbedded = errors.New("no embedded data")

// CatalogRegions lists the regions with an embedded full-region SKU catalogue, sorted.
func CatalogRegions() []string { return regionsWithPrefix("catalog-") }

// FixtureRegions lists the regions with embedded hand-picked SKU records, sorted.
func FixtureRegions() []string { return regionsWithPrefix("skus-") }

// Catalog returns the full-region ARM Resource SKU list for region as JSON ({"value": [...]}).
func Catalog(region string) ([]byte, error) {
	return read("catalog-"+strings.ToLower(region)+".json.gz", "catalogue for region "+region)
}

// CompactCatalog returns the compact form of region's catalogue: tab-separated text that package
// instancetype generates from Catalog(region) and reads back (see instancetype's compact.go), or
// ErrNotEmbedded.
func CompactCatalog(region string) ([]byte, error) {
	data, err := compact.ReadFile("catalog-" + strings.ToLower(region) + ".tsv")
	if err != nil {
		return nil, fmt.Errorf("compact catalogue for region %s: %w", region, ErrNotEmbedded)
	}
	return data, nil
}

// CompactPrices returns the VM prices of one region with an embedded catalogue as CSV in the
// layout of Prices, the corrections of UnstablePrices applied: package pricing generates it from
// those two tables and reads it instead of them (see pricing's compact.go), or ErrNotEmbedded.
func CompactPrices(region string) ([]byte, error) {
	data, err := compact.ReadFile("prices-" + strings.ToLower(region) + ".csv")
	if err != nil {
		return nil, fmt.Errorf("compact prices for region %s: %w", region, ErrNotEmbedded)
	}
	return data, nil
}

// Fixture returns the hand-picked ARM Resource SKU records for region as JSON ({"value": [...]}).
func Fixture(region string) ([]byte, error) {
	return read("skus-"+strings.ToLower(region)+".json.gz", "SKU records for region "+region)
}

// Prices returns the price table as CSV: region,sku,on_demand_usd_per_hour,spot_usd_per_hour.
func Prices() ([]byte, error) { return read("prices.csv.gz", "price table") }

// UnstablePrices returns the rows of the price table whose value flipped between snapshots, as CSV:
// region,sku,on_demand_usd_per_hour,min_seen,max_seen,snapshots_present,values_in_snapshot_order.
func UnstablePrices() ([]byte, error) { return read("prices-unstable.csv.gz", "unstable price table") }

// KnownSKUs returns the known VM size names as CSV: name,family,discovered_on.
func KnownSKUs() ([]byte, error) { return read("known-skus.csv.gz", "known SKU list") }

func read(name, what string) ([]byte, error) {
	compressed, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, ErrNotEmbedded)
	}
	zr, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer zr.Close()
	// The gzip trailer's last four bytes are the data's size (mod 4 GiB): reading into a buffer of
	// that size saves io.ReadAll's regrowing and copying, a fifth of reading the 2.7 MB price table.
	var buf bytes.Buffer
	if n := len(compressed); n >= 4 {
		buf.Grow(int(binary.LittleEndian.Uint32(compressed[n-4:])) + bytes.MinRead) // ReadFrom wants MinRead free
	}
	if _, err := buf.ReadFrom(zr); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return buf.Bytes(), nil
}

func regionsWithPrefix(prefix string) []string {
	entries, err := files.ReadDir(".")
	if err != nil {
		return nil
	}
	var regions []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, prefix) && strings.HasSuffix(name, ".json.gz") {
			regions = append(regions, strings.TrimSuffix(strings.TrimPrefix(name, prefix), ".json.gz"))
		}
	}
	sort.Strings(regions)
	return regions
}

// diskPrices is kept as plain text (it is 29 lines) so that every price and its verified flag can be
// read in review.
//
//go:embed disk-prices.csv
var diskPrices []byte

// DiskPrices returns the managed-disk price table as CSV:
// region,storage_account_type,tier,size_gib,usd_per_month,verified. See doc.go for its sources.
func DiskPrices() []byte { return diskPrices }
