package consolidation

import (
	"cmp"
	"math"
	"slices"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

// spotToSpotMinTypes is Karpenter's MinInstanceTypesForSpotToSpotConsolidation: a single spot node
// is replaced by spot only when at least this many cheaper spot types could host its pods, and
// the launch list is cut to that many, so consolidation does not walk down the price list into
// the least available spot pools.
const spotToSpotMinTypes = 15

// priceBook looks up the pools' instance types by name.
type priceBook struct {
	types map[string]map[string]*instancetype.InstanceType
	pools map[string]*api.NodePool
}

func newPriceBook(in *Input) *priceBook {
	b := &priceBook{types: map[string]map[string]*instancetype.InstanceType{}, pools: map[string]*api.NodePool{}}
	for _, npi := range in.NodePools {
		if npi.NodePool == nil || b.pools[npi.NodePool.Name] != nil {
			continue
		}
		b.pools[npi.NodePool.Name] = npi.NodePool
		byName := make(map[string]*instancetype.InstanceType, len(npi.InstanceTypes))
		for _, it := range npi.InstanceTypes {
			if it != nil {
				byName[it.Name] = it
			}
		}
		b.types[npi.NodePool.Name] = byName
	}
	return b
}

// launchPrice is the price of launching typ of pool in zone as capacityType, if that offering is
// available.
func (b *priceBook) launchPrice(pool, typ, zone, capacityType string) (float64, bool) {
	it := b.types[pool][typ]
	if it == nil {
		return 0, false
	}
	for _, o := range it.Offerings {
		if o.Available && o.Zone == zone && o.CapacityType == capacityType {
			return o.Price, true
		}
	}
	return 0, false
}

// replaceRule is what a replacement has to beat.
type replaceRule struct {
	// below is the removed nodes' summed price; every launch option must cost strictly less.
	below float64
	// removedTypes maps each removed node's instance type to the cheapest removed node of that
	// type; a replacement may not be one of them, nor cost as much as one (Karpenter's
	// filterOutSameInstanceType), else it would only shuffle pods onto an identical node.
	removedTypes map[string]float64
	// minSavings is Options.MinReplaceSavings (zero: Karpenter's rule); see ceiling.
	minSavings float64
	// allSpot is set when every removed node is spot; single when one node is removed.
	allSpot, single bool
	spotToSpot      bool
	// anyPrice is drift's rule: no price filter at all, only the capacity-type pinning.
	anyPrice bool
}

// newReplaceRule is the rule for removing nodes.
func newReplaceRule(nodes []*candidate, opts Options) replaceRule {
	r := replaceRule{removedTypes: map[string]float64{}, allSpot: true, single: len(nodes) == 1, spotToSpot: opts.SpotToSpot}
	for _, c := range nodes {
		r.below += c.price
		if c.capacityType != api.CapacityTypeSpot {
			r.allSpot = false
		}
		if c.instanceType != nil {
			if old, ok := r.removedTypes[c.instanceType.Name]; !ok || c.price < old {
				r.removedTypes[c.instanceType.Name] = c.price
			}
		}
	}
	r.minSavings = opts.MinReplaceSavings
	return r
}

// ceiling is what the replacements together must cost less than: the removed nodes' price less
// the least saving. A launch option dearer is dropped from the list (as options no cheaper than
// the removed nodes are), rather than the whole replace refused for its dearest option.
func (r replaceRule) ceiling() float64 { return r.below * (1 - r.minSavings) }

// priced is a replacement after the rules: its launch list filtered, and its cheapest and worst
// launch prices.
type priced struct {
	claim           provisioner.NodeClaim
	cheapest, worst float64
}

// option is one launch-list entry with its price at the claim's zone and capacity type.
type option struct {
	name  string
	price float64
}

// price applies the replacement rules to a claim the simulation opened. The claim is pinned to
// the zone and capacity type the simulation chose (its labels already say so, and the simulation
// placed pods for that zone): when spot and on-demand are both allowed the simulation picks spot,
// which is never dearer, so this is Karpenter's "pin to spot" rule. Its worst launch price is then
// the dearest option left. below, when finite, is a further strict price cap (priceAll's share of
// the savings for a command with several replacements). why is non-empty when nothing is left.
func (b *priceBook) price(nc provisioner.NodeClaim, r replaceRule, below float64) (priced, string) {
	opts := b.options(nc)
	limit, ceiling := math.Inf(1), math.Inf(1)
	if !r.anyPrice {
		limit = min(r.below, below)
		for _, o := range opts {
			if p, same := r.removedTypes[o.name]; same {
				limit = min(limit, p)
			}
		}
		ceiling = min(limit, r.ceiling())
	}
	short := false // a type cheaper than the removed nodes was dropped for saving too little
	opts = slices.DeleteFunc(opts, func(o option) bool {
		if _, same := r.removedTypes[o.name]; (same && !r.anyPrice) || o.price >= limit {
			return true
		}
		short = short || o.price >= ceiling
		return o.price >= ceiling
	})
	if !r.anyPrice && r.allSpot && nc.CapacityType == api.CapacityTypeSpot {
		if !r.spotToSpot {
			return priced{}, "spot-to-spot consolidation is disabled"
		}
		if r.single && len(opts) < spotToSpotMinTypes {
			return priced{}, "spot-to-spot needs 15 cheaper spot instance types"
		}
		if r.single {
			opts = opts[:spotToSpotMinTypes]
		}
	}
	if len(opts) == 0 && short {
		return priced{}, "no instance type saves MinReplaceSavings of the removed nodes' price"
	}
	if len(opts) == 0 {
		return priced{}, "no instance type is cheaper than the removed nodes"
	}
	if why := b.minValues(nc.NodePool, opts); why != "" {
		return priced{}, why
	}
	return priced{claim: b.relabel(nc, opts), cheapest: opts[0].price, worst: opts[len(opts)-1].price}, ""
}

// options prices the claim's launch list at its zone and capacity type, cheapest first; types the
// pool's catalogue cannot launch there are dropped.
func (b *priceBook) options(nc provisioner.NodeClaim) []option {
	out := make([]option, 0, len(nc.InstanceTypeOptions))
	for _, name := range nc.InstanceTypeOptions {
		if p, ok := b.launchPrice(nc.NodePool, name, nc.Zone, nc.CapacityType); ok {
			out = append(out, option{name: name, price: p})
		}
	}
	slices.SortStableFunc(out, func(a, b option) int { return cmp.Compare(a.price, b.price) })
	return out
}

// minValues re-checks the pool's minValues on the filtered list, as Karpenter's
// RemoveInstanceTypeOptionsByPriceAndMinValues does.
func (b *priceBook) minValues(pool string, opts []option) string {
	np := b.pools[pool]
	if np == nil {
		return ""
	}
	for _, req := range np.Spec.Template.Spec.Requirements {
		if req.MinValues == nil {
			continue
		}
		seen := map[string]bool{}
		for _, o := range opts {
			if r := b.types[pool][o.name].Requirements[req.Key]; r != nil {
				for _, v := range r.Values() {
					seen[v] = true
				}
			}
		}
		if len(seen) < *req.MinValues {
			return "the cheaper instance types do not meet minValues for " + req.Key
		}
	}
	return ""
}

// relabel gives the claim its filtered launch list; when its cheapest type was filtered out, the
// new cheapest type's labels, capacity and price replace the old one's.
func (b *priceBook) relabel(nc provisioner.NodeClaim, opts []option) provisioner.NodeClaim {
	names := make([]string, len(opts))
	for i, o := range opts {
		names[i] = o.name
	}
	nc.InstanceTypeOptions = names
	if nc.InstanceType == opts[0].name {
		return nc
	}
	oldType, newType := b.types[nc.NodePool][nc.InstanceType], b.types[nc.NodePool][opts[0].name]
	labels := make(map[string]string, len(nc.Labels))
	for k, v := range nc.Labels {
		labels[k] = v
	}
	if oldType != nil {
		for k := range oldType.Requirements.Labels() {
			delete(labels, k)
		}
	}
	for k, v := range newType.Requirements.Labels() {
		labels[k] = v
	}
	nc.Labels = labels
	nc.InstanceType, nc.PricePerHour = newType.Name, roundPrice(opts[0].price)
	nc.DiskPricePerHour = 0
	if o, ok := findOffering(newType, nc.Zone, nc.CapacityType); ok {
		nc.DiskPricePerHour = roundPrice(o.DiskPrice)
	}
	nc.VMPricePerHour = roundPrice(opts[0].price - nc.DiskPricePerHour)
	nc.Capacity, nc.Allocatable = newType.Capacity.DeepCopy(), newType.Allocatable().DeepCopy()
	return nc
}

// priceAll applies the rule to every claim and checks their summed worst price is strictly
// below the removed nodes'. One claim may launch as any type cheaper than the removed nodes. Several
// (a split, M → N) share the room: with slack the removed nodes' price minus the claims' summed
// cheapest prices, each claim's launch list keeps the types priced below its cheapest plus an equal
// share of slack, so that whichever types launch, the command still saves. (Filtering each list
// against the removed nodes' whole price would let each claim launch up to it, and the command's
// worst case would then almost never save.)
func (b *priceBook) priceAll(claims []provisioner.NodeClaim, r replaceRule) ([]provisioner.NodeClaim, float64, string) {
	caps := make([]float64, len(claims))
	for i := range caps {
		caps[i] = math.Inf(1)
	}
	if len(claims) > 1 && !r.anyPrice {
		slack := r.ceiling()
		for i, nc := range claims {
			pc, why := b.price(nc, r, caps[i])
			if why != "" {
				return nil, 0, why
			}
			caps[i] = pc.cheapest
			slack -= pc.cheapest
		}
		if slack <= 0 {
			return nil, 0, "the replacements together cost as much as the removed nodes"
		}
		for i := range caps {
			caps[i] += slack / float64(len(claims))
		}
	}
	out := make([]provisioner.NodeClaim, 0, len(claims))
	total := 0.0
	for i, nc := range claims {
		pc, why := b.price(nc, r, caps[i])
		if why != "" {
			return nil, 0, why
		}
		out = append(out, pc.claim)
		total += pc.worst
	}
	if !r.anyPrice && total >= r.ceiling() {
		return nil, 0, "the replacements together cost as much as the removed nodes"
	}
	return out, total, ""
}
