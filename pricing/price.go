package pricing

import "math"

// MissingPrice is the hourly price, in USD, that callers give a SKU with no known price. It is above
// every real VM price (the dearest row of the embedded table, Standard_M896ixds_24_v3 in brazilsouth,
// is about 623 USD/h), so such SKUs sort last and are launched only when nothing priced fits, rather
// than being excluded outright. Karpenter's Azure provider uses the same value.
const MissingPrice = 999.0

// Price is the Linux pay-as-you-go price of one VM size in one region, in USD per hour.
type Price struct {
	OnDemand float64
	// Spot is the spot price. When SpotKnown is false it equals OnDemand: with no spot price at hand,
	// spot capacity is priced like on-demand (as Karpenter's Azure provider does until its first live
	// refresh), which never makes spot look cheaper than it is known to be.
	Spot      float64
	SpotKnown bool
}

// normalised returns p with Spot filled from OnDemand when no spot price is known.
func (p Price) normalised() Price {
	if !p.SpotKnown {
		p.Spot = p.OnDemand
	}
	return p
}

// validPrice reports whether v can be used as a price; see ErrInvalidPrice.
func validPrice(v float64) bool {
	return v > 0 && !math.IsInf(v, 1)
}

// RegionPrices holds the prices of one region. It is a read-only view: the map it wraps is never
// changed after it is built, so a RegionPrices stays valid and consistent while a Provider swaps in
// newer prices. The zero value has no prices.
type RegionPrices struct {
	region string
	prices map[string]Price
	// disks are the managed-disk prices of diskRegion, which differs from region when the data has
	// disk prices for neither the region asked for nor region (see Snapshot.Region).
	disks      DiskTables
	diskRegion string
	diskNote   string
}

// Region returns the name of the region whose prices these are. After a fallback it is the
// fallback region, not the one asked for.
func (r RegionPrices) Region() string { return r.region }

// Len returns the number of priced SKUs.
func (r RegionPrices) Len() int { return len(r.prices) }

// Lookup returns the price of an ARM VM size name such as "Standard_D2s_v3". Names match exactly,
// as ARM spells them. Spot is filled as described on Price.
func (r RegionPrices) Lookup(sku string) (Price, bool) {
	p, ok := r.prices[sku]
	return p, ok
}

// OnDemand returns the pay-as-you-go price of sku in USD per hour.
func (r RegionPrices) OnDemand(sku string) (float64, bool) {
	p, ok := r.prices[sku]
	return p.OnDemand, ok
}

// Spot returns the spot price of sku in USD per hour: the real spot price when one is known, else
// the on-demand price (see Price.Spot).
func (r RegionPrices) Spot(sku string) (float64, bool) {
	p, ok := r.prices[sku]
	return p.Spot, ok
}
