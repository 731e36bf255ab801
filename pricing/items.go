package pricing

import "strings"

// apiPage is one page of a Retail Prices API answer. Only the fields napkit uses are decoded; see
// https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices for the rest.
type apiPage struct {
	Items        []apiItem `json:"Items"`
	NextPageLink string    `json:"NextPageLink"` // absent or null on the last page
}

type apiItem struct {
	ArmSkuName  string  `json:"armSkuName"`
	RetailPrice float64 `json:"retailPrice"` // USD per hour, given the currency and unit filtered for
	ProductName string  `json:"productName"`
	SkuName     string  `json:"skuName"`
	MeterName   string  `json:"meterName"`
	// UnitOfMeasure is "1 Hour" for VMs and "1/Month" for disk tiers.
	UnitOfMeasure string `json:"unitOfMeasure"`
}

// collector gathers the prices of one region across pages.
type collector struct {
	onDemand map[string]float64
	spot     map[string]float64
}

func newCollector() *collector {
	return &collector{onDemand: make(map[string]float64), spot: make(map[string]float64)}
}

// add files one item under on-demand or spot, or drops it. Windows products carry a licence in
// their price and Low Priority meters are Azure Batch's, so neither prices a Linux node.
func (c *collector) add(it apiItem) {
	sku := strings.TrimSpace(it.ArmSkuName)
	switch {
	case sku == "" || !validPrice(it.RetailPrice): // zero-priced placeholder meters exist
		return
	case strings.HasSuffix(it.ProductName, " Windows"), strings.HasSuffix(it.MeterName, " Low Priority"):
		return
	case strings.HasSuffix(it.SkuName, " Spot"):
		keepLowest(c.spot, sku, it.RetailPrice)
	default:
		keepLowest(c.onDemand, sku, it.RetailPrice)
	}
}

// keepLowest records v for sku unless a lower value is already recorded. The API sometimes lists
// more than one Linux-looking meter for one size and in no stable order; the dearer one carries a
// licence (the Windows leak DefaultSnapshot corrects), so the lowest is the Linux price, and taking
// it makes the result independent of the order.
func keepLowest(m map[string]float64, sku string, v float64) {
	if old, ok := m[sku]; !ok || v < old {
		m[sku] = v
	}
}

// prices joins the two maps. A size with a spot price but no on-demand price is left out: every
// Price carries an on-demand price, which callers use without checking it.
func (c *collector) prices() map[string]Price {
	out := make(map[string]Price, len(c.onDemand))
	for sku, od := range c.onDemand {
		p := Price{OnDemand: od}
		p.Spot, p.SpotKnown = c.spot[sku]
		out[sku] = p.normalised()
	}
	return out
}

// diskCollector gathers the managed-disk tier prices of one region across pages.
type diskCollector struct {
	perMonth map[string]map[string]float64 // storage type → tier → lowest price seen
}

func newDiskCollector() *diskCollector {
	return &diskCollector{perMonth: map[string]map[string]float64{}}
}

// add keeps an item when it is the monthly price of an LRS tier: meter "<tier> LRS Disk" (not
// "... Disk Mount" or "... Disk Operations"), unit per month, a known tier of the product's type.
func (c *diskCollector) add(it apiItem) {
	storageType, ok := diskStorageType(it.ProductName)
	tier, isDisk := strings.CutSuffix(strings.TrimSpace(it.MeterName), " LRS Disk")
	if !ok || !isDisk || !strings.Contains(it.UnitOfMeasure, "Month") || !validPrice(it.RetailPrice) {
		return
	}
	if _, tierType, known := TierSize(tier); !known || tierType != storageType {
		return
	}
	if c.perMonth[storageType] == nil {
		c.perMonth[storageType] = map[string]float64{}
	}
	keepLowest(c.perMonth[storageType], tier, it.RetailPrice)
}

// tables returns what was gathered, sorted by size.
func (c *diskCollector) tables() DiskTables {
	b := newDiskBuilder()
	for storageType, tiers := range c.perMonth {
		for tier, price := range tiers {
			size, _, _ := TierSize(tier)
			_ = b.add(storageType, DiskTier{Name: tier, SizeGiB: size, PerMonth: price}) // every entry was checked in add
		}
	}
	return b.done()
}
