package pricing

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// FallbackRegion is the region whose prices stand in for a region the data does not cover, as in
// Karpenter's Azure provider: an approximate price ranks SKUs far better than MissingPrice for all.
const FallbackRegion = "eastus"

// Note is something a lookup wants the caller to know, such as a fallback to another region's
// prices. The library does not log; callers log notes. The zero Note means there is nothing to say.
type Note struct {
	Message string
}

// Snapshot is an immutable set of prices by region and SKU. It is safe for concurrent use.
type Snapshot struct {
	regions map[string]map[string]Price // region → SKU → normalised price; never changed once built
	names   []string                    // sorted keys of regions
	disks   map[string]DiskTables       // region → managed-disk tiers; never changed once built
}

// NewSnapshot builds a snapshot from prices by region and SKU, for tests and for callers with their
// own price source. It copies its input. Region names are lower-cased; a price is rejected when
// OnDemand, or Spot when SpotKnown, is not a valid price (see ErrInvalidPrice).
func NewSnapshot(prices map[string]map[string]Price) (*Snapshot, error) {
	regions := make(map[string]map[string]Price, len(prices))
	for region, skus := range prices {
		name, err := regionName(region)
		if err != nil {
			return nil, err
		}
		if _, dup := regions[name]; dup {
			return nil, fmt.Errorf("pricing: region %q given twice (names are case-insensitive)", region)
		}
		table, err := copyPrices(name, skus)
		if err != nil {
			return nil, err
		}
		regions[name] = table
	}
	return newSnapshot(regions), nil
}

func copyPrices(region string, skus map[string]Price) (map[string]Price, error) {
	table := make(map[string]Price, len(skus))
	for sku, p := range skus {
		if sku == "" {
			return nil, fmt.Errorf("pricing: region %s: empty SKU name", region)
		}
		if !validPrice(p.OnDemand) || (p.SpotKnown && !validPrice(p.Spot)) {
			return nil, fmt.Errorf("pricing: region %s SKU %s: %w (on-demand %v, spot %v)",
				region, sku, ErrInvalidPrice, p.OnDemand, p.Spot)
		}
		table[sku] = p.normalised()
	}
	return table, nil
}

// newSnapshot wraps regions, which the snapshot then owns.
func newSnapshot(regions map[string]map[string]Price) *Snapshot {
	return &Snapshot{regions: regions, names: slices.Sorted(maps.Keys(regions)), disks: map[string]DiskTables{}}
}

// WithDiskPrices returns a copy of s whose managed-disk prices are tables (by region, as
// ParseDiskCSV returns them) in place of s's for those regions. The tables are copied and checked
// as ParseDiskCSV checks rows.
func (s *Snapshot) WithDiskPrices(tables map[string]DiskTables) (*Snapshot, error) {
	out := s.clone()
	for region, byType := range tables {
		name, err := regionName(region)
		if err != nil {
			return nil, err
		}
		b := newDiskBuilder()
		for storageType, tiers := range byType {
			for _, t := range tiers {
				if err := b.add(storageType, t); err != nil {
					return nil, fmt.Errorf("pricing: region %s disk prices: %w", name, err)
				}
			}
		}
		out.disks[name] = b.done()
	}
	return out, nil
}

// clone copies s's maps (not the tables they hold, which are never changed). A nil s gives an empty
// snapshot.
func (s *Snapshot) clone() *Snapshot {
	if s == nil {
		return newSnapshot(map[string]map[string]Price{})
	}
	out := newSnapshot(maps.Clone(s.regions))
	out.disks = maps.Clone(s.disks)
	return out
}

// DiskRegions returns the names of the regions with managed-disk prices, sorted.
func (s *Snapshot) DiskRegions() []string {
	if s == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(s.disks))
}

// Region returns the prices of region (case-insensitive). When the snapshot has no prices for it,
// it returns FallbackRegion's prices and a Note saying so; when it has neither, it returns empty
// prices and a Note. A nil snapshot has no regions.
//
// Managed-disk prices fall back the same way, on their own: a region with VM prices but no disk prices
// gets FallbackRegion's disk prices; RegionPrices.DiskNote says so (the Note is about VM prices only).
func (s *Snapshot) Region(region string) (RegionPrices, Note) {
	name := strings.ToLower(region)
	var rp RegionPrices
	var note Note
	if table, ok := s.table(name); ok {
		rp = RegionPrices{region: name, prices: table}
	} else if table, ok := s.table(FallbackRegion); ok {
		note.Message = fmt.Sprintf("no prices for region %s; using %s", region, FallbackRegion)
		rp = RegionPrices{region: FallbackRegion, prices: table}
	} else {
		note.Message = fmt.Sprintf("no prices for region %s nor for the fallback region %s", region, FallbackRegion)
	}
	switch {
	case s.diskTables(name) != nil:
		rp.disks, rp.diskRegion = s.diskTables(name), name
	case s.diskTables(FallbackRegion) != nil:
		rp.diskNote = fmt.Sprintf("no managed-disk prices for region %s; using %s", region, FallbackRegion)
		rp.disks, rp.diskRegion = s.diskTables(FallbackRegion), FallbackRegion
	default:
		rp.diskNote = fmt.Sprintf("no managed-disk prices for region %s", region)
	}
	return rp, note
}

func (s *Snapshot) diskTables(region string) DiskTables {
	if s == nil {
		return nil
	}
	return s.disks[region]
}

func (s *Snapshot) table(region string) (map[string]Price, bool) {
	if s == nil {
		return nil, false
	}
	table, ok := s.regions[region]
	return table, ok
}

// Regions returns the names of the regions with prices, sorted. The caller may modify the slice.
func (s *Snapshot) Regions() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.names)
}

// withRegion returns a new snapshot that shares s's tables except region's, which becomes table.
// Sharing is safe because tables are never changed once built.
func (s *Snapshot) withRegion(region string, table map[string]Price) *Snapshot {
	out := s.clone()
	out.regions[region] = table
	out.names = slices.Sorted(maps.Keys(out.regions))
	return out
}

// withDisks returns a new snapshot that shares s's tables except region's disk prices.
func (s *Snapshot) withDisks(region string, tables DiskTables) *Snapshot {
	out := s.clone()
	out.disks[region] = tables
	return out
}

// regionName lower-cases an ARM region name and checks it; see ErrInvalidRegion.
func regionName(region string) (string, error) {
	name := strings.ToLower(region)
	if !validRegion(name) {
		return "", fmt.Errorf("pricing: %w: %q", ErrInvalidRegion, region)
	}
	return name, nil
}

// validRegion reports whether name, already lower-cased, is a plausible ARM region name.
func validRegion(name string) bool {
	return name != "" && len(name) <= maxRegionLen && strings.IndexFunc(name, notRegionRune) < 0
}

// maxRegionLen is far above the longest ARM region name ("germanywestcentral" has 18 characters).
const maxRegionLen = 64

func notRegionRune(r rune) bool {
	return (r < 'a' || r > 'z') && (r < '0' || r > '9')
}
