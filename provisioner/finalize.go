package provisioner

import (
	"cmp"
	"fmt"
	"slices"
)

// choice is a new NodeClaim's final instance type, offering and launch list.
type choice struct {
	b       *bin
	t       int
	pair    int
	price   float64
	options []string
	relaxed bool
	name    string
}

// finalize gives every new NodeClaim its cheapest instance type that fits what was packed (the
// downsizing step: a claim packed towards a large target often fits a smaller, cheaper type), keeps
// the pools' limits while doing so, and computes each launch list.
func (e *engine) finalize() []choice {
	var out []choice
	for _, b := range e.bins {
		if b.kind == binNew && !b.dead && len(b.pods) > 0 {
			out = append(out, choice{b: b})
		}
	}
	for i := range out {
		e.chooseFinal(&out[i])
	}
	for i := range out {
		e.launchOptions(&out[i])
	}
	e.nameClaims(out)
	return out
}

// chooseFinal moves the bin's limit charge to the cheapest type that fits and keeps the limits.
func (e *engine) chooseFinal(ch *choice) {
	b := ch.b
	p := b.pool
	for _, lc := range e.launchOrder(p, b.mask) {
		pt := p.types[lc.t]
		if !b.used.fits(pt.alloc) || dsPortClash(pt, b.ports) || !e.withinLimits(p, pt.limitCap, b.charge) {
			continue
		}
		if b.charge != nil {
			e.charge(p, b.charge, -1)
		}
		b.charge = pt.limitCap
		e.charge(p, b.charge, 1)
		ch.t, ch.pair = lc.t, e.pickOffering(b, lc.t)
		ch.price = p.pairs[ch.pair].price
		return
	}
	// Placement keeps the target feasible, so this is not reached; should it be, keep the first
	// type the mask allows rather than fail.
	for t := range p.types {
		if pi := e.pickOffering(b, t); pi >= 0 {
			ch.t, ch.pair, ch.price = t, pi, p.pairs[pi].price
			return
		}
	}
}

// pickOffering chooses the cheapest pair of type t in the bin's mask: spot before on-demand and
// zonal before regional at equal price, then a seed-dependent order of zones.
func (e *engine) pickOffering(b *bin, t int) int {
	p := b.pool
	pt := p.types[t]
	best := -1
	for i := pt.pair0; i < pt.pair0+pt.npair; i++ {
		if b.mask != nil && !b.mask.has(i) {
			continue
		}
		if best < 0 || e.offeringLess(b, &p.pairs[i], &p.pairs[best]) {
			best = i
		}
	}
	return best
}

func (e *engine) offeringLess(b *bin, x, y *pair) bool {
	if x.price != y.price {
		return x.price < y.price
	}
	if xs, ys := x.capType == "spot", y.capType == "spot"; xs != ys {
		return xs
	}
	if xr, yr := x.zone == "0", y.zone == "0"; xr != yr {
		return yr
	}
	key := fmt.Sprintf("%s/%d/", b.pool.name, b.seq)
	return e.seedRank(key+x.zone+x.capType) < e.seedRank(key+y.zone+y.capType)
}

// launchOptions lists the types the claim may launch as: those that fit, cheapest first, without
// a single swap breaking the pool's limits, truncated to MaxInstanceTypes; minValues is re-checked
// on the truncated list.
func (e *engine) launchOptions(ch *choice) {
	b := ch.b
	p := b.pool
	key := optionsKey(p, b)
	if opts, ok := e.optionsCache[key]; ok {
		ch.options, ch.relaxed = opts.names, b.relaxed || opts.relaxed
		return
	}
	var list []launchCandidate
	for _, lc := range e.launchOrder(p, b.mask) {
		pt := p.types[lc.t]
		if !b.used.fits(pt.alloc) || dsPortClash(pt, b.ports) || !e.withinLimits(p, pt.limitCap, b.charge) {
			continue
		}
		list = append(list, lc)
		if len(list) == e.opts.MaxInstanceTypes {
			break
		}
	}
	ch.options = make([]string, len(list))
	for i, lc := range list {
		ch.options[i] = p.types[lc.t].name
	}
	relaxed := false
	if len(p.minValues) > 0 {
		_, met := minValuesPrefix(p, b.mask, list)
		relaxed = !met
	}
	ch.relaxed = b.relaxed || relaxed
	e.optionsCache[key] = launchOptionsEntry{names: ch.options, relaxed: relaxed}
}

// launchOptionsEntry caches a launch list: NodeClaims packed alike (same mask, requests, ports and
// limit charge) share one.
type launchOptionsEntry struct {
	names   []string
	relaxed bool
}

func optionsKey(p *pool, b *bin) string {
	key := p.name + "\x00" + resKey(b.used) + "\x00" + fmt.Sprint(b.ports, b.charge) + "\x00"
	if b.mask != nil {
		key += string(bitsetKey(b.mask))
	}
	return key
}

// nameClaims names claims "<pool>-<n>" in creation order, skipping names nodes already use.
func (e *engine) nameClaims(out []choice) {
	if len(out) == 0 {
		return
	}
	taken := map[string]bool{}
	slices.SortStableFunc(out, func(a, b choice) int {
		return cmp.Or(cmp.Compare(a.b.pool.idx, b.b.pool.idx), cmp.Compare(a.b.seq, b.b.seq))
	})
	next := map[int]int{}
	for i := range out {
		p := out[i].b.pool
		for {
			next[p.idx]++
			name := fmt.Sprintf("%s-%d", p.name, next[p.idx])
			if !taken[name] && !e.nodeNamed(name) {
				out[i].name = name
				taken[name] = true
				break
			}
		}
		out[i].b.name = out[i].name
	}
}

// nodeNamed reports whether an existing node or in-flight claim (not taken away) has the name. The
// index is built once: a Simulator names claims for many questions about the same bins.
func (e *engine) nodeNamed(name string) bool {
	if e.fixedNames == nil {
		e.fixedNames = make(map[string][]*bin, e.fixedBins)
		for _, b := range e.bins[:e.fixedBins] {
			e.fixedNames[b.name] = append(e.fixedNames[b.name], b)
		}
	}
	for _, b := range e.fixedNames[name] {
		if !b.dead {
			return true
		}
	}
	return false
}

// totalPrice sums the choices' prices.
func totalPrice(chs []choice) float64 {
	var s float64
	for _, ch := range chs {
		s += ch.price
	}
	return s
}

// placedCount counts pods (real and buffer) with a place.
func (e *engine) placedCount() int {
	n := 0
	for _, pi := range e.pods {
		if e.binOf(pi) != nil {
			n++
		}
	}
	return n
}
