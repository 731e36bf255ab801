package provisioner

import (
	"cmp"
	"math"
	"slices"
)

// improve is the local search after packing, within Options.ImproveBudget units of work (pods taken
// off a NodeClaim in a trial, counted whether the trial is kept or undone; checked between trials).
// The budget counts work, not time, so the same input gives the same plan on any machine, however
// loaded. It only moves free pods, which no topology constraint depends on once every pod is placed:
//
//   - evacuate: move a NodeClaim's free pods into room other bins have (existing nodes first), when
//     the price the receivers grow by is less than what the NodeClaim saves (all of its price when
//     it empties, else the step down to a smaller type);
//   - merge: replace two under-filled NodeClaims of free pods by one of a type that fits both, when
//     cheaper.
//
// Downsizing each NodeClaim to the cheapest type that fits is finalize's job.
func (e *engine) improve() {
	if e.opts.ImproveBudget < 0 || e.baseline {
		return
	}
	b := &workBudget{left: e.opts.ImproveBudget}
	e.eliminate(b)
	e.mergePairs(b)
}

// workBudget is what is left of Options.ImproveBudget in one improvement phase.
type workBudget struct{ left int }

// spent reports whether the budget is used up.
func (w *workBudget) spent() bool { return w.left <= 0 }

// charge takes n units of work (at least one per trial, so even empty trials end the phase).
func (w *workBudget) charge(n int) { w.left -= max(n, 1) }

// fitPrice is the price of the cheapest type a NodeClaim's pods fit in (0 when empty).
func (e *engine) fitPrice(b *bin) float64 {
	if len(b.pods) == 0 || b.dead {
		return 0
	}
	if b.kind != binNew {
		return 0
	}
	for _, lc := range e.launchOrder(b.pool, b.mask) {
		pt := b.pool.types[lc.t]
		if b.used.fits(pt.alloc) && !dsPortClash(pt, b.ports) {
			return lc.price
		}
	}
	return math.Inf(1)
}

// freeOnly reports whether every pod on b is movable.
func (e *engine) freeOnly(b *bin) bool {
	if b.kind != binNew || b.dead || len(b.pods) == 0 {
		return false
	}
	for _, cc := range b.classes {
		if !e.movable(cc.c) {
			return false
		}
	}
	return true
}

// movable reports whether a class's pods may move once placed: free pods no topology group selects.
// (Moving a pod another pod's affinity selected would strand its followers, and moving one a
// spread counts could, in hindsight, change the counts an owner placed after it was checked
// against.)
func (e *engine) movable(c *podClass) bool {
	v := e.view(c)
	return v.free && len(v.zMatch) == 0 && len(v.hMatch) == 0
}

// hasFree reports whether a new NodeClaim holds some movable pod.
func (e *engine) hasFree(b *bin) bool {
	if b.kind != binNew || b.dead {
		return false
	}
	for _, cc := range b.classes {
		if e.movable(cc.c) {
			return true
		}
	}
	return false
}

// improvable lists the NodeClaims keep accepts, by ascending utilization of their target.
func (e *engine) improvable(keep func(*bin) bool) []*bin {
	var out []*bin
	util := map[*bin]float64{}
	for _, b := range e.bins {
		if keep(b) {
			out = append(out, b)
			util[b] = utilization(b)
		}
	}
	slices.SortStableFunc(out, func(a, b *bin) int { return cmp.Or(cmp.Compare(util[a], util[b]), cmp.Compare(a.id, b.id)) })
	return out
}

// utilization is the largest share of any resource the bin's pods use of its target.
func utilization(b *bin) float64 {
	u := 0.0
	for r, v := range b.used {
		if b.cap[r] > 0 && r != resPods {
			u = max(u, float64(v)/float64(b.cap[r]))
		}
	}
	return u
}

func (e *engine) eliminate(budget *workBudget) {
	for _, b := range e.improvable(e.hasFree) {
		if budget.spent() {
			return
		}
		if e.hasFree(b) {
			budget.charge(len(b.pods))
			e.tryEvacuate(b)
		}
	}
}

// move is a pod moved by a trial, and where it came from.
type move struct {
	pi   *podInfo
	from *bin
}

// tryEvacuate moves b's free pods elsewhere and keeps the result only if the plan got cheaper.
func (e *engine) tryEvacuate(b *bin) {
	before := e.fitPrice(b)
	prices := map[*bin]float64{}
	var moves []move
	for _, pi := range slices.Clone(b.pods) {
		if !e.movable(pi.class) {
			continue
		}
		e.removePod(pi)
		to := e.placeElsewhere(pi.class, b, prices)
		if to == nil {
			e.undo(moves, b)
			e.putBack(pi.class, b)
			return
		}
		moves = append(moves, move{pi: pi, from: to})
	}
	delta := e.fitPrice(b) - before
	for r, p := range prices {
		delta += e.fitPrice(r) - p
	}
	if delta < -1e-9 {
		e.retire(b)
		return
	}
	e.undo(moves, b)
}

// placeElsewhere places one pending pod of c on the first bin other than skip that takes it,
// recording the receiver's fit price before the move.
func (e *engine) placeElsewhere(c *podClass, skip *bin, prices map[*bin]float64) *bin {
	for id := e.tree.next(0, c.req); id >= 0; id = e.tree.next(id+1, c.req) {
		r := e.bins[id]
		if r == skip {
			continue
		}
		if _, seen := prices[r]; !seen {
			prices[r] = e.fitPrice(r)
		}
		pl := e.check(r, c, 0, 1)
		if pl.n > 0 && pl.keepsBin() {
			e.commit(pl)
			return r
		}
	}
	return nil
}

// keepsBin reports whether committing pl leaves its bin's narrowing, target and relaxation as they
// are. A trial moves pods only onto such receivers: undoing it takes the pods off again, and a
// receiver narrowed to another zone or retargeted by the trial would stay so (a dearer offering
// after finalize) although the trial was undone.
func (pl *placement) keepsBin() bool {
	b := pl.b
	if b.kind != binNew {
		return true
	}
	if pl.mask != nil && (b.mask == nil || !b.mask.equal(pl.mask)) {
		return false
	}
	for _, list := range [][]keyReq{pl.creqs, pl.pins} {
		for _, kr := range list {
			if have, ok := b.creqs[kr.key]; !ok || !have.Equal(have.Intersection(kr.r)) {
				return false
			}
		}
	}
	return pl.target == b.target && (b.relaxed || !pl.relaxed)
}

// undo takes the moved pods off their receivers and puts them back on b.
func (e *engine) undo(moves []move, b *bin) {
	for _, m := range moves {
		pi := m.pi
		if e.binOf(pi) == nil {
			continue
		}
		e.removePod(pi)
		e.putBack(pi.class, b)
	}
}

// putBack places one pending pod of c back on b, which held it a moment ago.
func (e *engine) putBack(c *podClass, b *bin) {
	if pl := e.check(b, c, 0, 1); pl.n > 0 {
		e.commit(pl)
	}
}

const mergeCandidates = 64

// mergePairs tries, among the least utilized free-only NodeClaims, to merge pairs of one pool into
// a single NodeClaim of the cheapest type that fits both, when that is cheaper than the two.
func (e *engine) mergePairs(budget *workBudget) {
	cands := e.improvable(e.freeOnly)
	if len(cands) > mergeCandidates {
		cands = cands[:mergeCandidates]
	}
	for i, a := range cands {
		for _, b := range cands[i+1:] {
			if budget.spent() {
				return
			}
			if !a.dead && !b.dead && a.pool == b.pool && e.freeOnly(a) && e.freeOnly(b) {
				budget.charge(len(b.pods))
				e.tryMerge(a, b)
			}
		}
	}
}

func (e *engine) tryMerge(a, b *bin) {
	p := a.pool
	mask := a.mask
	if b.mask != nil {
		if mask == nil {
			mask = b.mask
		} else if mask = mask.and(b.mask); !mask.any() {
			return
		}
	}
	content := a.used.clone()
	content.addScaled(b.used, 1)
	saving := e.fitPrice(a) + e.fitPrice(b)
	t := e.cheapestFitting(p, mask, content, a, b)
	if t < 0 || e.launchPriceOf(p, mask, t) >= saving-1e-9 {
		return
	}
	e.retargetForMerge(a, b, t)
	for _, pi := range slices.Clone(b.pods) {
		e.removePod(pi)
		if pl := e.check(a, pi.class, 0, 1); pl.n > 0 {
			e.commit(pl)
			continue
		}
		e.putBack(pi.class, b)
	}
	e.retire(b)
}

// cheapestFitting returns the cheapest type in mask fitting content whose limit charge fits once
// a's and b's charges are released, or -1.
func (e *engine) cheapestFitting(p *pool, mask bitset, content resVec, a, b *bin) int {
	release := make([]int64, len(p.limits))
	for i := range release {
		if a.charge != nil {
			release[i] += a.charge[i]
		}
		if b.charge != nil {
			release[i] += b.charge[i]
		}
	}
	for _, lc := range e.launchOrder(p, mask) {
		pt := p.types[lc.t]
		if content.fits(pt.alloc) && !dsPortClash(pt, a.ports) && !dsPortClash(pt, b.ports) && e.withinLimits(p, pt.limitCap, release) {
			return lc.t
		}
	}
	return -1
}

func (e *engine) launchPriceOf(p *pool, mask bitset, t int) float64 {
	return p.pairs[p.cheapestPair(mask, t)].price
}

// retargetForMerge makes t a's target, moving the limit charges.
func (e *engine) retargetForMerge(a, b *bin, t int) {
	p := a.pool
	if a.charge != nil {
		e.charge(p, a.charge, -1)
	}
	if b.charge != nil {
		e.charge(p, b.charge, -1)
		b.charge = nil
	}
	a.target, a.charge, a.cap = t, p.types[t].limitCap, p.types[t].alloc
	e.charge(p, a.charge, 1)
	e.tree.update(a.id, e.binFree(a))
}
