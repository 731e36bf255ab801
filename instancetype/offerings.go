package instancetype

import (
	"cmp"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/requirements"
)

// Offering is one place and way to buy an instance type: a zone ("<region>-<n>", or "0" for a VM
// without an availability zone) and a capacity type (spot or on-demand).
type Offering struct {
	Zone         string `json:"zone"`
	CapacityType string `json:"capacityType"`
	// Price is the node's full price in USD per hour: VMPrice + DiskPrice, what the bill shows for a
	// node of this offering. pricing.MissingPrice when the VM price is unknown, so such offerings sort
	// last.
	Price float64 `json:"price"`
	// VMPrice is the VM's price in USD per hour (pricing.MissingPrice when unknown).
	VMPrice float64 `json:"vmPrice"`
	// DiskPrice is the managed OS disk's price in USD per hour; 0 for an ephemeral OS disk (see
	// InstanceType.EphemeralOSDisk).
	DiskPrice float64 `json:"diskPrice"`
	// Available is false while the offering is known to be out of capacity (Options.Unavailable).
	Available bool `json:"available"`
	// UnavailableReason says why an offering is unavailable when something other than the
	// capacity cache made it so (package quota: "vCPU quota standardDSv3Family: 98 of 100 used").
	UnavailableReason string `json:"unavailableReason,omitempty"`
	// UltraSSD reports whether Ultra SSD data disks can be attached in this zone.
	UltraSSD bool `json:"ultraSSD,omitempty"`
	// Requirements hold the offering's labels: zone, capacity type, placement scope, the two AKS
	// priority labels (single values) and Ultra SSD support (["false"] or ["false", "true"]). Build
	// shares one map between all offerings with the same labels: read it, or Clone it before Add.
	Requirements requirements.Requirements `json:"-"`
}

// Offerings is an instance type's offerings, sorted cheapest first (see Build).
type Offerings []Offering

// Regional reports whether the offering places the VM without an availability zone.
func (o Offering) Regional() bool { return o.Zone == api.RegionalZone }

// PlacementScope is the placement-scope label: regional for zone "0", zonal otherwise.
func (o Offering) PlacementScope() string {
	if o.Regional() {
		return api.PlacementScopeRegional
	}
	return api.PlacementScopeZonal
}

// Available returns the available offerings, in order, as a new slice.
func (os Offerings) Available() Offerings {
	out := make(Offerings, 0, len(os))
	for _, o := range os {
		if o.Available {
			out = append(out, o)
		}
	}
	return out
}

// Cheapest returns the first available offering in the comparator's order (price, then spot before
// on-demand, zonal before regional, zone name).
func (os Offerings) Cheapest() (Offering, bool) {
	var best Offering
	found := false
	for _, o := range os {
		if o.Available && (!found || compareOfferings(o, best) < 0) {
			best, found = o, true
		}
	}
	return best, found
}

// compareOfferings orders offerings by price, then spot before on-demand (as Karpenter's Azure
// allocation strategy does: without live spot prices spot is priced like on-demand, and is never
// dearer), then zonal before regional, then zone name and capacity type, so the order is total.
func compareOfferings(a, b Offering) int {
	if c := cmp.Compare(a.Price, b.Price); c != 0 {
		return c
	}
	if aSpot, bSpot := a.CapacityType == api.CapacityTypeSpot, b.CapacityType == api.CapacityTypeSpot; aSpot != bSpot {
		if aSpot {
			return -1
		}
		return 1
	}
	if a.Regional() != b.Regional() {
		if b.Regional() {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(a.Zone, b.Zone), cmp.Compare(a.CapacityType, b.CapacityType))
}
