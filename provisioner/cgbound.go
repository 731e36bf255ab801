package provisioner

import (
	"math"

	"github.com/napkit/napkit/provisioner/internal/lp"
)

// cgBound is the configuration-LP bound (karpenter-core §7.1 #4): column generation over every
// placed pod, patterns being an instance type (of any pool) and the pods of each shape one node of
// it holds. Whatever the pricing finds, the master's duals π scaled by the largest ratio of a
// type's best-pattern value (an upper bound from the knapsack) to its price are dual feasible for
// the full configuration LP, so Σ n·π / κ is a valid lower bound (Farley's bound); when the pricing
// is exact and finds nothing, κ ≤ 1 and the bound is the LP optimum itself. Topology is ignored,
// which only makes the bound weaker, never invalid.
func (e *engine) cgBound(placed map[*podClass]int) float64 {
	cols, colsOf := e.boundColumns()
	sets := e.classTypeSets(colsOf, placed)
	shapes, allowed := e.boundShapes(sets, placed)
	if len(shapes) == 0 {
		return 0
	}
	types := boundPareto(cols, shapes, allowed)
	counts := make([]int, len(shapes))
	for i, s := range shapes {
		counts[i] = s.n
	}
	pats := e.boundInitial(cols, types, shapes, allowed, counts)
	var best float64
	for range cgMaxRounds {
		sol, err := lp.Solve(masterProblem(pats, counts))
		if err != nil {
			return best
		}
		kappa, added := e.boundPrice(cols, types, shapes, allowed, counts, sol.Y, &pats)
		var dual float64
		for s, n := range counts {
			dual += float64(n) * sol.Y[s]
		}
		if kappa > 0 {
			best = max(best, dual/max(1, kappa))
		}
		if added == 0 {
			break
		}
	}
	return best
}

// boundShapes groups placed classes by requests and allowed columns; allowed[s] is shape s's set.
func (e *engine) boundShapes(sets []*typeSet, placed map[*podClass]int) ([]*shape, []bitset) {
	var shapes []*shape
	var allowed []bitset
	for _, ts := range sets {
		byReq := map[string]*shape{}
		for _, c := range ts.classes {
			k := resKey(c.req)
			s, ok := byReq[k]
			if !ok {
				s = &shape{req: c.req, group: -1}
				byReq[k] = s
				shapes = append(shapes, s)
				allowed = append(allowed, ts.cols)
			}
			s.classes = append(s.classes, c)
			s.n += placed[c]
		}
	}
	return shapes, allowed
}

// boundPareto keeps the columns no other column beats: at most the price, at least the allocatable
// in every resource, and allowed for every shape the first is allowed for.
func boundPareto(cols []coverColumn, shapes []*shape, allowed []bitset) []int {
	var cand []int
	for j := range cols {
		for s := range shapes {
			if allowed[s].has(j) && shapes[s].req.fits(cols[j].alloc) {
				cand = append(cand, j)
				break
			}
		}
	}
	used := make(resVec, len(shapes[0].req))
	for _, s := range shapes {
		for r, v := range s.req {
			used[r] = max(used[r], v)
		}
	}
	allowedOn := make(map[int]bitset, len(cand))
	for _, j := range cand {
		b := newBitset(len(shapes))
		for s := range shapes {
			if allowed[s].has(j) {
				b.set(s)
			}
		}
		allowedOn[j] = b
	}
	var out []int
	for _, j := range cand {
		dominated := false
		for _, o := range cand {
			if o != j && allowedOn[j].subsetOf(allowedOn[o]) && dominates(cols[o].alloc, cols[o].price, cols[j].alloc, cols[j].price, used, o < j) {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, j)
		}
	}
	return out
}

func maskedCounts(counts []int, allowed []bitset, j int) []int {
	out := make([]int, len(counts))
	for s, n := range counts {
		if allowed[s].has(j) {
			out[s] = n
		}
	}
	return out
}

func (e *engine) boundInitial(cols []coverColumn, types []int, shapes []*shape, allowed []bitset, counts []int) []cgPattern {
	var pats []cgPattern
	for s, sh := range shapes {
		best, bestCost := cgPattern{t: -1}, math.Inf(1)
		for _, j := range types {
			if !allowed[s].has(j) {
				continue
			}
			k := copiesInto(sh.req, cols[j].alloc, e.rt.zero(), counts[s])
			if k == 0 {
				continue
			}
			if c := cols[j].price / float64(k); c < bestCost {
				pc := make([]int, len(shapes))
				pc[s] = k
				best, bestCost = cgPattern{t: j, counts: pc, price: cols[j].price}, c
			}
		}
		if best.t >= 0 {
			pats = append(pats, best)
		}
	}
	return pats
}

// boundPrice prices every column at duals y, adds the best improving patterns, and returns κ, the
// largest upper bound on value per price over the columns (0 when some column is free).
func (e *engine) boundPrice(cols []coverColumn, types []int, shapes []*shape, allowed []bitset, counts []int, y []float64, pats *[]cgPattern) (float64, int) {
	kappa := 0.0
	var cands []cgPattern
	var rcs []float64
	for _, j := range types {
		k, value, ub := e.knapsack(cols[j].alloc, shapes, maskedCounts(counts, allowed, j), y, nil, boundEffort)
		price := cols[j].price
		if price <= 0 {
			return 0, 0
		}
		kappa = max(kappa, ub/price)
		if rc := (price - value) / price; rc < -1e-9 && !hasPattern(*pats, j, k) {
			cands = append(cands, cgPattern{t: j, counts: k, price: price})
			rcs = append(rcs, rc)
		}
	}
	added := 0
	for range cgColumnsPerPass {
		at := -1
		for i, rc := range rcs {
			if rc < 0 && (at < 0 || rc < rcs[at]) {
				at = i
			}
		}
		if at < 0 {
			break
		}
		*pats = append(*pats, cands[at])
		rcs[at] = 0
		added++
	}
	return kappa, added
}
