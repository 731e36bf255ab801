package provisioner

import (
	"math"
)

// packFree places the free classes (pods constrained only by node requirements): first into the
// room left on open bins, then onto new NodeClaims chosen and filled as whole patterns.
func (e *engine) packFree(free []*podClass) int {
	placed := e.fillFixed(free)
	for _, c := range free {
		for e.remaining(c) > 0 {
			n := e.tryQuota(c, 0, e.remaining(c))
			if n == 0 {
				break
			}
			placed += n
		}
	}
	for _, b := range e.bins[e.fixedBins:] {
		placed += e.fillBin(b, free)
	}
	placed += e.cgPack(free)
	return placed + e.openForFree(free)
}

// fillFixed fills the existing nodes and in-flight claims in bin order. The fit tree skips the bins
// without room for the smallest free pod left (fillBin would place nothing there), so the pass
// costs what the bins with room cost, not the cluster's size.
func (e *engine) fillFixed(free []*podClass) int {
	placed := 0
	need, left := e.smallestRequest(free)
	if !left {
		return 0
	}
	for id := e.tree.next(0, need); id >= 0 && id < e.fixedBins; id = e.tree.next(id+1, need) {
		if placed += e.fillBin(e.bins[id], free); placed > 0 && !e.anyRemaining(free) {
			break
		}
	}
	return placed
}

func (e *engine) anyRemaining(classes []*podClass) bool {
	for _, c := range classes {
		if e.remaining(c) > 0 {
			return true
		}
	}
	return false
}

// smallestRequest is the per-resource minimum request of the free classes with pods left, and
// whether there is one.
func (e *engine) smallestRequest(free []*podClass) (resVec, bool) {
	var need resVec
	for _, c := range free {
		if e.remaining(c) == 0 {
			continue
		}
		if need == nil {
			need = c.req.clone()
			continue
		}
		for i, v := range c.req {
			need[i] = min(need[i], v)
		}
	}
	return need, need != nil
}

// fillBin greedily fills b's free room with free pods: each step takes the class whose request is
// best aligned with the room left (largest dot product of request and free capacity, both relative
// to the bin's size), which fills CPU and memory together instead of running out of one first.
func (e *engine) fillBin(b *bin, free []*podClass) int {
	if b.closed || b.dead || b.growable {
		return 0
	}
	cands := e.fillCandidates(b, free)
	var w []float64
	if b.kind == binNew {
		w = valueWeights(b.cap, e.freeLP.duals)
	}
	placed := 0
	for len(cands) > 0 {
		best, at := e.bestAligned(b, cands, w)
		if best == nil {
			break
		}
		pl := e.check(b, best, 0, 1)
		if pl.n == 0 {
			cands = append(cands[:at], cands[at+1:]...)
			continue
		}
		e.commit(pl)
		placed++
	}
	return placed
}

// fillCandidates are the free classes with pods left that fit b now and pass its cheap checks.
func (e *engine) fillCandidates(b *bin, free []*podClass) []*podClass {
	room := b.free()
	var out []*podClass
	for _, c := range free {
		if e.remaining(c) == 0 || !c.req.fits(room) || !e.tolerates(c, e.view(c).variants[0], b) {
			continue
		}
		if b.kind != binNew {
			if !e.nodeMatches(e.view(c).variants[0].reqset, b) {
				continue
			}
		} else if comp := b.pool.compat(e.view(c).variants[0].reqset); !comp.ok || (comp.mask != nil && b.mask != nil && !b.mask.intersects(comp.mask)) {
			continue
		}
		out = append(out, c)
	}
	return out
}

func (e *engine) bestAligned(b *bin, cands []*podClass, w []float64) (*podClass, int) {
	var best *podClass
	at, bestScore := -1, -1.0
	for i, c := range cands {
		if e.remaining(c) == 0 || !fitsFree(c.req, b.cap, b.used) {
			continue
		}
		if s := alignment(c.req, b.cap, b.used, w); s > bestScore {
			best, at, bestScore = c, i, s
		}
	}
	return best, at
}

func fitsFree(req, cap, used resVec) bool {
	for i, n := range req {
		if n > cap[i]-used[i] {
			return false
		}
	}
	return true
}

// alignment is Σ w·(req/cap)·(free/cap) over the resources the bin has. The weights are each
// resource's share of the node's dual value, so a memory-rich node prefers memory-heavy pods (CPU is
// cheaper elsewhere); nil weights count every resource alike.
func alignment(req, cap, used resVec, w []float64) float64 {
	var s float64
	for i, n := range req {
		if cap[i] <= 0 || n == 0 {
			continue
		}
		c := float64(cap[i])
		a := float64(n) / c * float64(cap[i]-used[i]) / c
		if w != nil {
			a *= w[i]
		}
		s += a
	}
	return s
}

// valueWeights returns each resource's share of a node's dual value, or nil without prices.
func valueWeights(cap resVec, d coverResult) []float64 {
	if !d.ok {
		return nil
	}
	w := make([]float64, len(cap))
	var total float64
	for r, y := range d.y {
		w[r] = y * float64(cap[r])
		total += w[r]
	}
	if total <= 0 {
		return nil
	}
	for r := range w {
		w[r] = w[r]/total + 1e-3 // a small floor keeps unpriced resources from being ignored
	}
	return w
}

// openForFree opens NodeClaims for the free pods left, one pattern at a time: for each of the
// instance types the free demand's covering LP ranks best, it simulates filling one node with the
// pods left, keeps the type whose node packs the most dual value per dollar, opens it, and repeats
// its pattern while the pods last. Pods that no pool can take are marked stuck.
func (e *engine) openForFree(free []*podClass) int {
	placed := 0
	for {
		n, progress := e.openNextPattern(free)
		placed += n
		if !progress {
			for _, c := range free {
				if e.remaining(c) > 0 {
					e.queues[c.id].stuck = true
				}
			}
			return placed
		}
	}
}

// openNextPattern opens one pattern in the first pool (weight order) that can take a free pod.
func (e *engine) openNextPattern(free []*podClass) (int, bool) {
	for _, p := range e.pools {
		cands := e.poolFree(p, free)
		if len(cands) == 0 {
			continue
		}
		duals := e.freeDuals(p, cands)
		t, seed := e.bestPatternType(p, cands, duals)
		if t < 0 {
			continue
		}
		if n := e.openWithTarget(p, t, seed, cands); n > 0 {
			return n, true
		}
	}
	return 0, false
}

// poolFree lists the free classes with pods left that are not stuck and that pool p accepts.
func (e *engine) poolFree(p *pool, free []*podClass) []*podClass {
	var out []*podClass
	for _, c := range free {
		if e.remaining(c) > 0 && !e.queues[c.id].stuck && p.compat(e.view(c).variants[0].reqset).ok && untolerated(c.tols, p.taints, e.view(c).variants[0].tolPNS) == nil {
			out = append(out, c)
		}
	}
	return out
}

const patternCandidates = 8

// bestPatternType simulates a node of each of the best-ranked types that can take some pod left,
// and returns the type with the lowest price per dual value packed (ties: more pods), with the
// class its pattern starts from.
func (e *engine) bestPatternType(p *pool, free []*podClass, duals coverResult) (int, *podClass) {
	value := make([]float64, len(free))
	for i, c := range free {
		for r, y := range duals.y {
			value[i] += y * float64(c.req[r])
		}
	}
	best, bestScore, bestPods := -1, math.Inf(1), 0
	var bestSeed *podClass
	tried := 0
	for _, t := range e.rankTypes(p, duals) {
		if tried == patternCandidates {
			break
		}
		if !e.withinLimits(p, p.types[t].limitCap, nil) {
			continue
		}
		v, pods, seed := e.simulateFill(p, t, free, value)
		if pods == 0 {
			continue
		}
		tried++
		score := p.types[t].minPrice / max(v, 1e-300)
		if score < bestScore*(1-1e-9) || (score <= bestScore*(1+1e-9) && pods > bestPods) {
			best, bestScore, bestPods, bestSeed = t, score, pods, seed
		}
	}
	return best, bestSeed
}

// simulateFill packs a virtual node of type t with the fill greedy and returns the dual value and
// number of pods it would hold, and its first class. Only resources, node requirements and
// DaemonSet host ports are modelled; the real placement re-checks everything.
func (e *engine) simulateFill(p *pool, t int, free []*podClass, value []float64) (float64, int, *podClass) {
	cap := p.types[t].alloc
	w := valueWeights(cap, e.freeLP.duals)
	used := e.rt.zero()
	left := make([]int, len(free))
	for i, c := range free {
		comp := p.compat(e.view(c).variants[0].reqset)
		if comp.ok && p.typeIn(comp.mask, t) && !dsPortClash(p.types[t], c.ports) {
			left[i] = e.remaining(c)
		}
	}
	var total float64
	pods := 0
	var first *podClass
	for {
		at, bestScore := -1, -1.0
		for i, c := range free {
			if left[i] == 0 || !fitsFree(c.req, cap, used) {
				continue
			}
			if s := alignment(c.req, cap, used, w); s > bestScore {
				at, bestScore = i, s
			}
		}
		if at < 0 {
			return total, pods, first
		}
		if first == nil {
			first = free[at]
		}
		used.addScaled(free[at].req, 1)
		left[at]--
		total += value[at]
		pods++
	}
}

// openWithTarget opens a NodeClaim of type t for seed, fills it, and replays its pattern on
// further NodeClaims while every class of the pattern has pods left.
func (e *engine) openWithTarget(p *pool, t int, seed *podClass, free []*podClass) int {
	b, n := e.openForced(p, t, seed, 1)
	if b == nil {
		return 0
	}
	placed := n + e.fillBin(b, free)
	pattern := append([]classCount(nil), b.classes...)
	for e.patternAvailable(pattern) {
		nb, _ := e.openForced(p, t, pattern[0].c, int(pattern[0].n))
		if nb == nil {
			break
		}
		placed += int(nb.classes[0].n)
		complete := nb.classes[0].n == pattern[0].n
		for _, cc := range pattern[1:] {
			if !complete {
				break
			}
			pl := e.check(nb, cc.c, 0, int(cc.n))
			if pl.n == 0 {
				break
			}
			complete = pl.n == int(cc.n)
			e.commit(pl)
			placed += pl.n
		}
		if !complete {
			placed += e.fillBin(nb, free)
			break
		}
	}
	return placed
}

func (e *engine) patternAvailable(pattern []classCount) bool {
	for _, cc := range pattern {
		if e.remaining(cc.c) < int(cc.n) {
			return false
		}
	}
	return len(pattern) > 0
}

// openForced opens a NodeClaim in p with target t holding up to want pods of c.
func (e *engine) openForced(p *pool, t int, c *podClass, want int) (*bin, int) {
	e.forceTarget = t
	defer func() { e.forceTarget = -1 }()
	b := e.freshBin(p)
	pl := e.check(b, c, 0, want)
	if pl.n == 0 {
		return nil, 0
	}
	e.register(b)
	e.commit(pl)
	return b, pl.n
}

// freeLPCache keeps the free-demand duals of one pool until the demand has shrunk by a tenth.
type freeLPCache struct {
	pool   int
	pods   int
	duals  coverResult
	filled bool
}

func (e *engine) freeDuals(p *pool, free []*podClass) coverResult {
	left := 0
	for _, c := range free {
		left += e.remaining(c)
	}
	fc := &e.freeLP
	if fc.filled && fc.pool == p.idx && left*10 > fc.pods*9 {
		return fc.duals
	}
	inFree := map[*podClass]bool{}
	for _, c := range free {
		inFree[c] = true
	}
	demand, _ := e.poolDemand(p, func(c *podClass) bool { return inFree[c] })
	*fc = freeLPCache{pool: p.idx, pods: left, duals: solveCover(demand, 0, e.poolColumns(p)), filled: true}
	return fc.duals
}
