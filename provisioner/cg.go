package provisioner

import (
	"cmp"
	"math"
	"slices"

	"github.com/napkit/napkit/provisioner/internal/lp"
)

// Column generation packs the free pods of one pool the way cutting-stock problems are solved
// (Gilmore–Gomory): the master LP chooses how many nodes of each pattern (an instance type and how
// many pods of each shape it holds) cover the pods at least cost; its dual prices say what a pod of
// each shape is worth, and a knapsack per instance type finds the pattern whose pods are worth more
// than the node costs, which joins the master. When no pattern improves, the LP's patterns are
// rounded down to whole nodes and the few pods left over are packed again, then rounded up. Unlike
// a greedy that fills one node after another, the LP sees the whole fleet, so it does not spend
// the pods that complement each other best on the first nodes it opens.

// shape is the free pods of a pool that pack identically: same requests, same node requirements.
type shape struct {
	req     resVec
	reqset  *reqSet
	classes []*podClass
	n       int
	group   int // per-node group (index into the group caps), -1 for none
}

// cgPattern is an instance type and the pods of each shape one node of it holds.
type cgPattern struct {
	t      int
	counts []int
	price  float64
}

const (
	cgMaxRounds      = 40
	cgColumnsPerPass = 12
	// nodeEpsilon is a per-node cost (USD/h) small enough never to outweigh a price difference;
	// between plans of equal price it prefers fewer nodes.
	nodeEpsilon = 1e-6
	// cgTailGain is the relative LP improvement per round below which packing stops generating.
	cgTailGain = 2e-3
)

// cgPack places free pods of every pool with column generation; it returns the pods placed.
func (e *engine) cgPack(free []*podClass) int {
	placed := 0
	for _, p := range e.pools {
		for _, group := range e.shapeGroups(p, e.poolFree(p, free)) {
			placed += e.cgGroup(p, group)
		}
	}
	return placed
}

// shapeGroups splits the classes into groups with one node-requirement set each (pods of different
// sets are not mixed on a pattern) and, within a group, into shapes.
func (e *engine) shapeGroups(p *pool, classes []*podClass) [][]*shape {
	byKey := map[string]*shape{}
	groups := map[int][]*shape{}
	var order []int
	for _, c := range classes {
		rs := e.view(c).variants[0].reqset
		key := string(rune(rs.id)) + "|" + resKey(c.req)
		s, ok := byKey[key]
		if !ok {
			s = &shape{req: c.req, reqset: rs, group: -1}
			byKey[key] = s
			if _, seen := groups[rs.id]; !seen {
				order = append(order, rs.id)
			}
			groups[rs.id] = append(groups[rs.id], s)
		}
		s.classes = append(s.classes, c)
		s.n += e.remaining(c)
	}
	out := make([][]*shape, 0, len(order))
	for _, id := range order {
		out = append(out, groups[id])
	}
	return out
}

func resKey(v resVec) string {
	b := make([]byte, 0, len(v)*8)
	for _, x := range v {
		for i := range 8 {
			b = append(b, byte(x>>(8*i)))
		}
	}
	return string(b)
}

// cgGroup runs column generation for one group of shapes and places the rounded patterns.
func (e *engine) cgGroup(p *pool, shapes []*shape) int {
	mask := p.compat(shapes[0].reqset).mask
	types := e.paretoTypes(p, mask, shapes)
	if len(types) == 0 {
		return 0
	}
	counts := make([]int, len(shapes))
	for i, s := range shapes {
		counts[i] = s.n
	}
	// A large remainder is rounded down first and what is left re-solved; a small one (what the
	// fleet plan left over) is rounded up at once.
	total := 0
	for _, n := range counts {
		total += n
	}
	placed := 0
	for round := 0; round < 2; round++ {
		pats, xs := e.cgSolve(p, types, shapes, counts)
		if len(pats) == 0 {
			break
		}
		last := round == 1 || total <= 4*len(shapes)
		for _, u := range roundPatterns(pats, xs, counts, last) {
			placed += e.applyPattern(p, u, shapes, counts)
		}
		if last {
			break
		}
	}
	return placed
}

// paretoTypes lists the types of p in mask that fit some shape and fit the limits, dropping any type
// another matches or beats in price and in every resource the shapes use.
func (e *engine) paretoTypes(p *pool, mask bitset, shapes []*shape) []int {
	used := e.rt.zero()
	for _, s := range shapes {
		for r, v := range s.req {
			used[r] = max(used[r], v)
		}
	}
	var cand []int
	for t, pt := range p.types {
		if !p.typeIn(mask, t) || !e.withinLimits(p, pt.limitCap, nil) {
			continue
		}
		for _, s := range shapes {
			if s.req.fits(pt.alloc) {
				cand = append(cand, t)
				break
			}
		}
	}
	price := func(t int) float64 { return p.pairs[p.cheapestPair(mask, t)].price }
	var out []int
	for _, t := range cand {
		dominated := false
		for _, o := range cand {
			if o != t && dominates(p.types[o].alloc, price(o), p.types[t].alloc, price(t), used, o < t) {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, t)
		}
	}
	return out
}

// dominates reports whether type a (price pa) is at least as good as b in every used resource and
// price, and strictly better somewhere (or equal and earlier).
func dominates(a resVec, pa float64, b resVec, pb float64, used resVec, earlier bool) bool {
	if pa > pb {
		return false
	}
	strict := pa < pb
	for r, u := range used {
		if u == 0 {
			continue
		}
		if a[r] < b[r] {
			return false
		}
		strict = strict || a[r] > b[r]
	}
	return strict || earlier
}

// cgSolve generates patterns for the given counts and returns them with the LP's x.
func (e *engine) cgSolve(p *pool, types []int, shapes []*shape, counts []int) ([]cgPattern, []float64) {
	return e.cgSolveCaps(p, types, shapes, counts, nil)
}

// cgSolveCaps is cgSolve with per-node group caps (see knap).
func (e *engine) cgSolveCaps(p *pool, types []int, shapes []*shape, counts []int, caps []int) ([]cgPattern, []float64) {
	active := 0
	for _, n := range counts {
		if n > 0 {
			active++
		}
	}
	if active == 0 {
		return nil, nil
	}
	pats := e.initialPatterns(p, types, shapes, counts, caps)
	var sol lp.Solution
	slow := 0
	for round := range cgMaxRounds {
		prev := sol.Objective
		var err error
		if sol, err = lp.Solve(masterProblem(pats, counts)); err != nil {
			return nil, nil
		}
		// The tail of column generation barely moves the LP; packing does not need it (the bound
		// runs its own, complete generation).
		if round > 0 && prev-sol.Objective < cgTailGain*prev {
			if slow++; slow == 3 {
				break
			}
		} else {
			slow = 0
		}
		if e.pricePatterns(p, types, shapes, counts, sol.Y, &pats, caps) == 0 {
			break
		}
	}
	return pats[:len(sol.X)], sol.X
}

func masterProblem(pats []cgPattern, counts []int) lp.Problem {
	prob := lp.Problem{Cost: make([]float64, len(pats)), A: make([][]float64, len(counts)), Demand: make([]float64, len(counts))}
	for j, pt := range pats {
		prob.Cost[j] = pt.price + nodeEpsilon
	}
	for s, n := range counts {
		prob.Demand[s] = float64(n)
		row := make([]float64, len(pats))
		for j, pt := range pats {
			row[j] = float64(pt.counts[s])
		}
		prob.A[s] = row
	}
	return prob
}

// initialPatterns gives every shape its cheapest single-shape pattern, so the master is feasible.
func (e *engine) initialPatterns(p *pool, types []int, shapes []*shape, counts []int, caps []int) []cgPattern {
	var pats []cgPattern
	for s, sh := range shapes {
		if counts[s] == 0 {
			continue
		}
		best, bestCost := cgPattern{t: -1}, math.Inf(1)
		for _, t := range types {
			k := copiesInto(sh.req, p.types[t].alloc, e.rt.zero(), counts[s])
			if sh.group >= 0 {
				k = min(k, caps[sh.group])
			}
			if k == 0 {
				continue
			}
			price := e.typePrice(p, t, sh.reqset)
			if c := (price + nodeEpsilon) / float64(k); c < bestCost {
				pc := make([]int, len(shapes))
				pc[s] = k
				best, bestCost = cgPattern{t: t, counts: pc, price: price}, c
			}
		}
		if best.t >= 0 {
			pats = append(pats, best)
		}
	}
	return pats
}

func (e *engine) typePrice(p *pool, t int, rs *reqSet) float64 {
	return p.pairs[p.cheapestPair(p.compat(rs).mask, t)].price
}

// pricePatterns adds the patterns with the most negative reduced cost (at most cgColumnsPerPass).
func (e *engine) pricePatterns(p *pool, types []int, shapes []*shape, counts []int, y []float64, pats *[]cgPattern, caps []int) int {
	type found struct {
		pat cgPattern
		rc  float64
	}
	var cands []found
	for _, t := range types {
		price := e.typePrice(p, t, shapes[0].reqset)
		k, value, _ := e.knapsack(p.types[t].alloc, shapes, counts, y, caps, packEffort)
		if rc := price + nodeEpsilon - value; rc < -1e-9*max(price, 1e-9) && !hasPattern(*pats, t, k) {
			cands = append(cands, found{cgPattern{t: t, counts: k, price: price}, rc / price})
		}
	}
	slices.SortStableFunc(cands, func(a, b found) int { return cmp.Compare(a.rc, b.rc) })
	if len(cands) > cgColumnsPerPass {
		cands = cands[:cgColumnsPerPass]
	}
	for _, c := range cands {
		*pats = append(*pats, c.pat)
	}
	return len(cands)
}

func hasPattern(pats []cgPattern, t int, k []int) bool {
	for _, p := range pats {
		if p.t == t && slices.Equal(p.counts, k) {
			return true
		}
	}
	return false
}

// roundPatterns turns the LP's x into whole nodes: rounded down, or (last round) up. Each node takes
// only pods still left.
func roundPatterns(pats []cgPattern, xs []float64, counts []int, up bool) []cgPattern {
	order := make([]int, len(pats))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(xs[b], xs[a]) })
	left := slices.Clone(counts)
	var out []cgPattern
	for _, j := range order {
		copies := int(math.Floor(xs[j] + 1e-6))
		if up {
			copies = int(math.Ceil(xs[j] - 1e-6))
		}
		for range copies {
			k := make([]int, len(left))
			any := false
			for s, c := range pats[j].counts {
				k[s] = min(c, left[s])
				left[s] -= k[s]
				any = any || k[s] > 0
			}
			if !any {
				break
			}
			out = append(out, cgPattern{t: pats[j].t, counts: k, price: pats[j].price})
		}
	}
	return out
}

// applyPattern opens one node of the pattern and places its pods; it returns the pods placed and
// updates counts.
func (e *engine) applyPattern(p *pool, u cgPattern, shapes []*shape, counts []int) int {
	var b *bin
	placed := 0
	for s, k := range u.counts {
		for _, c := range shapes[s].classes {
			for k > 0 && e.remaining(c) > 0 {
				var n int
				if b == nil {
					b, n = e.openForced(p, u.t, c, k)
					if b == nil {
						return placed
					}
				} else {
					pl := e.check(b, c, 0, k)
					if pl.n == 0 {
						break
					}
					n = pl.n
					e.commit(pl)
				}
				k -= n
				counts[s] -= n
				placed += n
			}
		}
	}
	return placed
}
