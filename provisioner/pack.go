package provisioner

import "github.com/napkit/napkit/requirements"

// pack is the two packing phases: the fleet choice, then the placement.
func (e *engine) pack() {
	e.chooseFleet()
	e.place()
}

// chooseFleet prices each pool's resources (the duals that rank instance types for new NodeClaims)
// and, under the main strategy, opens the fleet the guidance LP plans (guide.go, fleet.go) as empty
// NodeClaims with per-shape quotas.
func (e *engine) chooseFleet() {
	e.computeDuals()
	if !e.baseline {
		e.computeGuidance()
	}
}

// place places every class. Constrained classes go pod by pod in Karpenter's queue order (largest
// CPU, then memory, first) onto the first bin that takes them: existing nodes, in-flight claims,
// NodeClaims opened earlier, then a new NodeClaim from the first pool (by weight) that can hold
// them. Free classes are then packed bin by bin (fill.go). Rounds repeat while any pod is placed,
// which lets affinity to pods placed later resolve, as Karpenter's retry queue does.
func (e *engine) place() {
	var constrained, free []*podClass
	for _, c := range e.classes {
		switch {
		case c.pre != "":
		case e.view(c).free && !e.baseline:
			free = append(free, c)
		default:
			constrained = append(constrained, c)
		}
	}
	for {
		progress := false
		for _, c := range constrained {
			if e.remaining(c) > 0 && e.placeClass(c) > 0 {
				progress = true
			}
		}
		if len(free) > 0 && e.packFree(free) > 0 {
			progress = true
		}
		if !progress && !e.releaseSlack(constrained, free) {
			return
		}
	}
}

// releaseSlack, when pods are still waiting, drops the planned NodeClaims left empty and shrinks
// every new NodeClaim's target to the cheapest type that fits what it holds, so limits they had
// reserved are free for another round. It reports whether anything was released.
func (e *engine) releaseSlack(constrained, free []*podClass) bool {
	waiting := false
	for _, list := range [][]*podClass{constrained, free} {
		for _, c := range list {
			waiting = waiting || e.remaining(c) > 0
		}
	}
	released := false
	for _, b := range e.bins {
		if b.kind != binNew || b.dead {
			continue
		}
		if len(b.pods) == 0 {
			e.retire(b)
			released = true
			continue
		}
		if waiting && !b.growable && e.shrinkTarget(b) {
			released = true
		}
	}
	if released && waiting {
		for _, c := range free {
			e.queues[c.id].stuck = false
		}
	}
	return released && waiting
}

// shrinkTarget moves a NodeClaim's target to the cheapest type its pods fit in, when that type
// takes less of the pool's limits.
func (e *engine) shrinkTarget(b *bin) bool {
	p := b.pool
	for _, lc := range e.launchOrder(p, b.mask) {
		pt := p.types[lc.t]
		if !b.used.fits(pt.alloc) || dsPortClash(pt, b.ports) {
			continue
		}
		if lc.t == b.target || !lessCharge(pt.limitCap, b.charge) {
			return false
		}
		e.charge(p, b.charge, -1)
		b.target, b.charge, b.cap = lc.t, pt.limitCap, pt.alloc
		e.charge(p, b.charge, 1)
		e.tree.update(b.id, e.binFree(b))
		return true
	}
	return false
}

// lessCharge reports whether a takes no more of any limit than b, and less of one.
func lessCharge(a, b []int64) bool {
	less := false
	for i := range a {
		if a[i] > b[i] {
			return false
		}
		less = less || a[i] < b[i]
	}
	return less
}

func (e *engine) placeClass(c *podClass) int {
	placed := 0
	for e.remaining(c) > 0 {
		n := e.placeStep(c)
		if n == 0 {
			break
		}
		placed += n
	}
	return placed
}

// placeStep places some pods of c. Under Respect each variant tries every bin, new ones included,
// before the next relaxation (Karpenter). Otherwise all variants first try the open bins, and a
// new NodeClaim honours a preference only if that costs no more than ignoring it.
func (e *engine) placeStep(c *podClass) int {
	want := e.remaining(c)
	if e.opts.PreferencePolicy == PreferenceRespect {
		for vi := range e.view(c).variants {
			if n := e.tryOpen(c, vi, want); n > 0 {
				return n
			}
			if n := e.tryNew(c, vi, want); n > 0 {
				return n
			}
		}
		return 0
	}
	for vi := range e.view(c).variants {
		if n := e.tryFixed(c, vi, want); n > 0 {
			return n
		}
		if n := e.tryQuota(c, vi, want); n > 0 {
			return n
		}
		if n := e.tryOpen(c, vi, want); n > 0 {
			return n
		}
	}
	return e.tryNewCostAware(c, want)
}

// tryOpen places pods of c on the first open bin (in bin order) that takes them. The fit tree
// skips bins without room; the class's cursor skips bins that rejected it for good.
func (e *engine) tryOpen(c *podClass, vi, want int) int {
	advance := true
	for id := e.tree.next(e.queues[c.id].cursor[vi], c.req); id >= 0; id = e.tree.next(id+1, c.req) {
		pl := e.check(e.bins[id], c, vi, want)
		if pl.n > 0 {
			e.commit(pl)
			return pl.n
		}
		if !pl.mono {
			advance = false
		} else if advance {
			e.queues[c.id].cursor[vi] = id + 1
		}
	}
	return 0
}

// tryFixed places pods of c on an existing node or in-flight claim (the first bins), which cost
// nothing new and so come before the NodeClaims the fleet plan opened.
func (e *engine) tryFixed(c *podClass, vi, want int) int {
	for id := e.tree.next(e.queues[c.id].cursor[vi], c.req); id >= 0 && id < e.fixedBins; id = e.tree.next(id+1, c.req) {
		if pl := e.check(e.bins[id], c, vi, want); pl.n > 0 {
			e.commit(pl)
			return pl.n
		}
	}
	return 0
}

// tryNew opens a NodeClaim in the first pool (weight order) that can take pods of c.
func (e *engine) tryNew(c *podClass, vi, want int) int {
	for _, p := range e.pools {
		b := e.freshBin(p)
		pl := e.check(b, c, vi, want)
		if pl.n > 0 {
			e.register(b)
			e.commit(pl)
			return pl.n
		}
	}
	return 0
}

// tryNewCostAware opens a NodeClaim under the least relaxed variant whose best NodeClaim is no
// dearer, per unit of value, than the fully relaxed one.
func (e *engine) tryNewCostAware(c *podClass, want int) int {
	last := len(e.view(c).variants) - 1
	if last == 0 {
		return e.tryNew(c, 0, want)
	}
	base, ok := e.newBinRatio(c, last, want)
	if !ok {
		return 0
	}
	for vi := 0; vi < last; vi++ {
		if r, ok := e.newBinRatio(c, vi, want); ok && r <= base*(1+1e-9) {
			return e.tryNew(c, vi, want)
		}
	}
	return e.tryNew(c, last, want)
}

// newBinRatio dry-runs tryNew and returns the chosen target's price per value.
func (e *engine) newBinRatio(c *podClass, vi, want int) (float64, bool) {
	for _, p := range e.pools {
		b := e.freshBin(p)
		pl := e.check(b, c, vi, want)
		if pl.n == 0 {
			continue
		}
		if pl.target < 0 {
			return 0, true
		}
		return typeRatio(p.types[pl.target], e.duals[p.idx]), true
	}
	return 0, false
}

// freshBin is an unregistered, empty NodeClaim of pool p.
func (e *engine) freshBin(p *pool) *bin {
	return &bin{id: len(e.bins), kind: binNew, pool: p, target: -1, used: e.rt.zero(), cap: e.rt.zero(),
		creqs: requirements.Requirements{}, growable: e.baseline}
}

// register adds a fresh bin to the solve.
func (e *engine) register(b *bin) {
	b.id = len(e.bins)
	e.seq[b.pool.idx]++
	b.seq = e.seq[b.pool.idx]
	e.appendBin(b)
}
