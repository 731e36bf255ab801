package pricing

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// HoursPerMonth converts Azure's monthly disk prices to hourly ones: Azure bills a disk-month as 730
// hours (365 × 24 / 12), the figure its pricing calculator uses.
const HoursPerMonth = 730.0

// Managed-disk storage account types, as a VM body's storageProfile.osDisk.managedDisk names them.
const (
	StoragePremiumLRS     = "Premium_LRS"
	StorageStandardSSDLRS = "StandardSSD_LRS"
	StorageStandardLRS    = "Standard_LRS"
)

// DiskTier is one provisioned size step of a managed-disk type: a disk is billed at the smallest
// tier at least as large as it (a 100 GiB Premium SSD is billed as a P10 of 128 GiB).
type DiskTier struct {
	// Name is Azure's tier name, e.g. "P10" or "E10".
	Name string
	// SizeGiB is the largest disk the tier bills.
	SizeGiB int64
	// PerMonth is the retail price in USD per disk-month.
	PerMonth float64
	// Unverified marks a figure its table says was not checked against a source (disk-prices.csv's
	// verified column "no"); prices fetched from the Retail Prices API are verified.
	Unverified bool
}

// DiskTables holds, per storage account type, its tiers sorted by size. Tables are never changed
// once built.
type DiskTables map[string][]DiskTier

// DiskPrice is the price of one managed OS disk.
type DiskPrice struct {
	StorageAccountType string  `json:"storageAccountType"`
	Tier               string  `json:"tier"`
	TierSizeGiB        int64   `json:"tierSizeGiB"`
	PerMonth           float64 `json:"pricePerMonth"`
	// PerHour is PerMonth / HoursPerMonth.
	PerHour float64 `json:"pricePerHour"`
	// Region is the region whose prices were used; it differs from the one asked for after a
	// fallback (see RegionPrices.DiskNote).
	Region string `json:"region"`
	// Unverified is DiskTier.Unverified of the tier used: say so rather than present it as real.
	Unverified bool `json:"unverified,omitempty"`
}

// ManagedDisk returns the price of a managed disk of sizeGB (Azure's diskSizeGB, which is GiB) of
// storage account type storageType: the smallest tier that holds it. ok is false when the region has
// no table for the type or the disk is larger than every tier listed.
func (r RegionPrices) ManagedDisk(storageType string, sizeGB int64) (DiskPrice, bool) {
	tiers := r.disks[storageType]
	i, _ := slices.BinarySearchFunc(tiers, sizeGB, func(t DiskTier, size int64) int { return cmp.Compare(t.SizeGiB, size) })
	if sizeGB <= 0 || i >= len(tiers) {
		return DiskPrice{}, false
	}
	t := tiers[i]
	return DiskPrice{StorageAccountType: storageType, Tier: t.Name, TierSizeGiB: t.SizeGiB, PerMonth: t.PerMonth,
		PerHour: t.PerMonth / HoursPerMonth, Region: r.diskRegion, Unverified: t.Unverified}, true
}

// DiskRegion returns the region whose disk prices these are: the region itself, FallbackRegion when
// the data has no disk prices for it, or "" when there are none at all.
func (r RegionPrices) DiskRegion() string { return r.diskRegion }

// DiskNote says where the disk prices came from when it is not the region itself (a fallback, or
// none at all); "" otherwise. Callers show it to users: the library does not log.
func (r RegionPrices) DiskNote() string { return r.diskNote }

// DiskTypes returns the storage account types with prices, sorted.
func (r RegionPrices) DiskTypes() []string { return slices.Sorted(maps.Keys(r.disks)) }

// tierSizes are Azure's managed-disk tier sizes in GiB (MicrosoftDocs azure-docs
// includes/disk-storage-premium-ssd-sizes.md, disk-storage-standard-ssd-sizes.md and
// disk-storage-standard-hdd-sizes.md); P, E and S tiers of one number have the same size.
var tierSizes = map[string]int64{
	"1": 4, "2": 8, "3": 16, "4": 32, "6": 64, "10": 128, "15": 256, "20": 512, "30": 1024,
	"40": 2048, "50": 4096, "60": 8192, "70": 16384, "80": 32767,
}

// tierPrefixes map a tier's letter to its storage account type (LRS meters only).
var tierPrefixes = map[byte]string{'P': StoragePremiumLRS, 'E': StorageStandardSSDLRS, 'S': StorageStandardLRS}

// TierSize returns the size in GiB and storage account type of an LRS tier name such as "P10";
// ok is false for a name that is not one.
func TierSize(tier string) (sizeGiB int64, storageType string, ok bool) {
	if len(tier) < 2 {
		return 0, "", false
	}
	storageType, ok = tierPrefixes[tier[0]]
	if !ok {
		return 0, "", false
	}
	sizeGiB, ok = tierSizes[tier[1:]]
	return sizeGiB, storageType, ok
}

// diskBuilder collects tiers for one region, rejecting repeats and bad prices.
type diskBuilder struct {
	tables DiskTables
	seen   map[string]bool // storage type + "/" + tier
}

func newDiskBuilder() *diskBuilder {
	return &diskBuilder{tables: DiskTables{}, seen: map[string]bool{}}
}

func (b *diskBuilder) add(storageType string, t DiskTier) error {
	tier, sizeGiB, perMonth := t.Name, t.SizeGiB, t.PerMonth
	wantSize, wantType, ok := TierSize(tier)
	switch {
	case !ok:
		return fmt.Errorf("tier %q is not an LRS tier name such as P10 or E10", tier)
	case wantType != storageType:
		return fmt.Errorf("tier %s belongs to %s, not %s", tier, wantType, storageType)
	case wantSize != sizeGiB:
		return fmt.Errorf("tier %s is %d GiB, not %d", tier, wantSize, sizeGiB)
	case !validPrice(perMonth) || math.IsNaN(perMonth):
		return fmt.Errorf("tier %s: %w (%v)", tier, ErrInvalidPrice, perMonth)
	case b.seen[storageType+"/"+tier]:
		return fmt.Errorf("tier %s of %s given twice", tier, storageType)
	}
	b.seen[storageType+"/"+tier] = true
	b.tables[storageType] = append(b.tables[storageType], t)
	return nil
}

// done sorts each table by size and returns them.
func (b *diskBuilder) done() DiskTables {
	for _, tiers := range b.tables {
		slices.SortFunc(tiers, func(x, y DiskTier) int { return cmp.Compare(x.SizeGiB, y.SizeGiB) })
	}
	return b.tables
}

// diskStorageType maps a Retail Prices API disk product to its LRS storage account type.
func diskStorageType(productName string) (string, bool) {
	switch strings.TrimSpace(productName) {
	case "Premium SSD Managed Disks":
		return StoragePremiumLRS, true
	case "Standard SSD Managed Disks":
		return StorageStandardSSDLRS, true
	case "Standard HDD Managed Disks":
		return StorageStandardLRS, true
	}
	return "", false
}
