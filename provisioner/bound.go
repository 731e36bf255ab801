package provisioner

import (
	"cmp"
	"math"
	"slices"

	"github.com/napkit/napkit/provisioner/internal/lp"
)

// lowerBound returns a lower bound on the hourly price of any plan that places the pods this plan
// places. Pods are split into compatibility components (classes whose allowed instance types
// overlap); components share no instance type, so their bounds add up. Each component's bound is
// the largest of:
//
//   - the fractional covering LP over the union of its types, with its pooled demand and a node
//     row for the pods that need a node each (hostname anti-affinity, hostname spread);
//   - for each distinct allowed-type set S, the LP of the demand that can only use S, with at
//     least as many S-nodes as the demand needs by volume (at least one);
//   - for each group of pods that need a node each, that many nodes at the cheapest type fitting
//     one of them.
//
// When existing nodes have room, their spare capacity is subtracted from the demand and one pooled
// LP over every type is solved instead (a weaker but still valid bound).
func (e *engine) lowerBound() float64 {
	cols, colsOf := e.boundColumns()
	placed := e.placedPerClass()
	spare := e.rt.zero()
	open := 0
	for _, b := range e.bins {
		if b.kind != binNew && !b.closed && !b.dead {
			spare.addScaled(b.cap, 1)
			open++
		}
	}
	if open > 0 {
		return e.pooledBound(cols, placed, spare, open)
	}
	sets := e.classTypeSets(colsOf, placed)
	var total float64
	for _, comp := range components(sets) {
		total += e.componentBound(cols, comp, placed)
	}
	return max(total, e.cgBound(placed))
}

// boundColumns lists every (pool, type) as an LP column; colsOf[pool] is the first column of the pool.
func (e *engine) boundColumns() ([]coverColumn, []int) {
	var cols []coverColumn
	colsOf := make([]int, len(e.pools))
	for _, p := range e.pools {
		colsOf[p.idx] = len(cols)
		for _, pt := range p.types {
			cols = append(cols, coverColumn{price: pt.minPrice, alloc: pt.alloc, counts: true})
		}
	}
	return cols, colsOf
}

func (e *engine) placedPerClass() map[*podClass]int {
	out := map[*podClass]int{}
	for _, pi := range e.pods {
		if e.binOf(pi) != nil {
			out[pi.class]++
		}
	}
	return out
}

// typeSet is the set of columns some classes may use, and those classes.
type typeSet struct {
	cols    bitset
	classes []*podClass
}

// classTypeSets groups placed classes by the columns they may use: pools whose taints they
// tolerate and whose requirements they meet (most relaxed variant), types that fit one pod.
func (e *engine) classTypeSets(colsOf []int, placed map[*podClass]int) []*typeSet {
	n := 0
	for _, p := range e.pools {
		n += len(p.types)
	}
	byKey := map[string]*typeSet{}
	memo := map[string]bitset{}
	var out []*typeSet
	for _, c := range e.classes {
		if placed[c] == 0 {
			continue
		}
		cols := e.classColumns(c, n, colsOf, memo)
		key := string(bitsetKey(cols))
		ts, ok := byKey[key]
		if !ok {
			ts = &typeSet{cols: cols}
			byKey[key] = ts
			out = append(out, ts)
		}
		ts.classes = append(ts.classes, c)
	}
	return out
}

// classColumns is the set of columns a class may use, memoised on what decides it: the variants'
// requirements and toleration of PreferNoSchedule, the tolerations and the requests.
func (e *engine) classColumns(c *podClass, n int, colsOf []int, memo map[string]bitset) bitset {
	var sb sig
	for _, v := range e.view(c).variants {
		sb.int(int64(v.reqset.id))
		if v.tolPNS {
			sb.tag("p")
		}
	}
	sb.str(c.tolKey)
	sb.str(resKey(c.req))
	if cols, ok := memo[sb.String()]; ok {
		return cols
	}
	cols := newBitset(n)
	// Variants differ in which required node affinity term holds, so the pods may use the
	// union of what the variants allow.
	for _, v := range e.view(c).variants {
		for _, p := range e.pools {
			comp := p.compat(v.reqset)
			if !comp.ok || untolerated(c.tols, p.taints, v.tolPNS) != nil {
				continue
			}
			for t, pt := range p.types {
				if p.typeIn(comp.mask, t) && c.req.fits(pt.alloc) {
					cols.set(colsOf[p.idx] + t)
				}
			}
		}
	}
	memo[sb.String()] = cols
	return cols
}

func bitsetKey(b bitset) []byte {
	out := make([]byte, 0, len(b)*8)
	for _, w := range b {
		for i := range 8 {
			out = append(out, byte(w>>(8*i)))
		}
	}
	return out
}

// components groups type sets that share a column (union-find).
func components(sets []*typeSet) [][]*typeSet {
	parent := make([]int, len(sets))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			if sets[i].cols.intersects(sets[j].cols) {
				parent[find(i)] = find(j)
			}
		}
	}
	groups := map[int][]*typeSet{}
	var roots []int
	for i := range sets {
		r := find(i)
		if _, ok := groups[r]; !ok {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], sets[i])
	}
	out := make([][]*typeSet, 0, len(roots))
	for _, r := range roots {
		out = append(out, groups[r])
	}
	return out
}

func (e *engine) componentBound(cols []coverColumn, comp []*typeSet, placed map[*podClass]int) float64 {
	union := newBitset(len(cols))
	var classes []*podClass
	for _, ts := range comp {
		for i := range union {
			union[i] |= ts.cols[i]
		}
		classes = append(classes, ts.classes...)
	}
	nodes, floor := e.forcedNodes(classes, placed, cols, comp)
	best := max(floor, e.setsBound(cols, union, comp, placed, float64(nodes)))
	for _, ts := range comp {
		var inside []*podClass
		for _, o := range comp {
			if o.cols.subsetOf(ts.cols) {
				inside = append(inside, o.classes...)
			}
		}
		sub := pick(cols, ts.cols)
		d := e.demandOf(inside, placed)
		best = max(best, solveCover(d, volumeNodes(d, sub), sub).bound)
	}
	return best
}

// maxBoundSets caps the rows of the joint LP; the sets with most demand are kept.
const maxBoundSets = 40

// setsBound solves one covering LP over the component's columns with a block of rows per type set
// S: the pods that can only use types in S must be covered by S's types. Every feasible plan meets
// every block at once, so this is a valid (and much tighter) relaxation than pooling all demand.
func (e *engine) setsBound(cols []coverColumn, union bitset, comp []*typeSet, placed map[*podClass]int, nodes float64) float64 {
	idx := pickIndex(union)
	prob := lp.Problem{Cost: make([]float64, len(idx))}
	for j, c := range idx {
		prob.Cost[j] = cols[c].price
	}
	addCoverRows(&prob, cols, idx, nil, e.demandOf(classesOf(comp), placed))
	for _, b := range e.setBlocks(idx, comp, placed) {
		addCoverRows(&prob, cols, idx, b.in, b.demand)
	}
	if nodes > 0 {
		row := make([]float64, len(idx))
		for j := range row {
			row[j] = 1
		}
		prob.A = append(prob.A, row)
		prob.Demand = append(prob.Demand, nodes)
	}
	sol, err := lp.Solve(prob)
	if err != nil {
		return 0
	}
	return sol.Bound
}

// block is the demand that can only use some of the columns.
type block struct {
	in     []bool
	demand resVec
	weight float64
}

// setBlocks returns a block per type set (the demand of every set inside it), largest first, at
// most maxBoundSets.
func (e *engine) setBlocks(idx []int, comp []*typeSet, placed map[*podClass]int) []block {
	var blocks []block
	for _, ts := range comp {
		var inside []*podClass
		for _, o := range comp {
			if o.cols.subsetOf(ts.cols) {
				inside = append(inside, o.classes...)
			}
		}
		b := block{in: make([]bool, len(idx)), demand: e.demandOf(inside, placed)}
		for j, c := range idx {
			b.in[j] = ts.cols.has(c)
		}
		b.weight = float64(b.demand[resCPU]) + float64(b.demand[resMemory])/1e6
		blocks = append(blocks, b)
	}
	slices.SortStableFunc(blocks, func(a, b block) int { return cmp.Compare(b.weight, a.weight) })
	if len(blocks) > maxBoundSets {
		blocks = blocks[:maxBoundSets]
	}
	return blocks
}

// addCoverRows adds a covering row per resource with demand, over the columns in (nil: all).
func addCoverRows(prob *lp.Problem, cols []coverColumn, idx []int, in []bool, demand resVec) {
	for r, d := range demand {
		if d <= 0 {
			continue
		}
		row := make([]float64, len(idx))
		some := false
		for j, c := range idx {
			if in == nil || in[j] {
				row[j] = float64(cols[c].alloc[r])
				some = some || row[j] > 0
			}
		}
		if some {
			prob.A = append(prob.A, row)
			prob.Demand = append(prob.Demand, float64(d))
		}
	}
}

func pickIndex(set bitset) []int {
	var out []int
	set.forEach(func(i int) { out = append(out, i) })
	return out
}

func classesOf(comp []*typeSet) []*podClass {
	var out []*podClass
	for _, ts := range comp {
		out = append(out, ts.classes...)
	}
	return out
}

func pick(cols []coverColumn, set bitset) []coverColumn {
	var out []coverColumn
	set.forEach(func(i int) { out = append(out, cols[i]) })
	return out
}

func (e *engine) demandOf(classes []*podClass, placed map[*podClass]int) resVec {
	d := e.rt.zero()
	for _, c := range classes {
		d.addScaled(c.req, int64(placed[c]))
	}
	return d
}

// volumeNodes is how many nodes of the given types the demand needs at least, by volume alone.
func volumeNodes(demand resVec, cols []coverColumn) float64 {
	n := 1.0
	for r, need := range demand {
		if need <= 0 {
			continue
		}
		var most int64
		for _, c := range cols {
			most = max(most, c.alloc[r])
		}
		if most > 0 {
			n = max(n, math.Ceil(float64(need)/float64(most)))
		}
	}
	return n
}

// forcedNodes returns the largest number of placed pods in the component that need a node each, and
// the floor price of that many nodes of the cheapest type fitting one of them.
func (e *engine) forcedNodes(classes []*podClass, placed map[*podClass]int, cols []coverColumn, comp []*typeSet) (int, float64) {
	counts := map[int32]int{}
	cheapest := map[int32]float64{}
	setOf := map[*podClass]*typeSet{}
	for _, ts := range comp {
		for _, c := range ts.classes {
			setOf[c] = ts
		}
	}
	for _, c := range classes {
		for _, gi := range c.terms.required {
			g := e.groups[gi]
			if !g.hostname || !c.matches[gi] || (g.kind != kindAnti && g.kind != kindSpread) {
				continue
			}
			counts[gi] += placed[c]
			if _, ok := cheapest[gi]; !ok {
				cheapest[gi] = math.Inf(1)
			}
			if ts := setOf[c]; ts != nil {
				ts.cols.forEach(func(i int) { cheapest[gi] = min(cheapest[gi], cols[i].price) })
			}
		}
	}
	nodes, floor := 0, 0.0
	ids := make([]int32, 0, len(counts))
	for gi := range counts {
		ids = append(ids, gi)
	}
	slices.Sort(ids)
	for _, gi := range ids {
		k := counts[gi]
		if g := e.groups[gi]; g.kind == kindSpread {
			k = (k + int(g.maxSkew) - 1) / int(g.maxSkew)
		}
		nodes = max(nodes, k)
		if !math.IsInf(cheapest[gi], 1) {
			floor = max(floor, float64(k)*cheapest[gi])
		}
	}
	return nodes, floor
}

// pooledBound is the bound when existing capacity may absorb part of the demand.
func (e *engine) pooledBound(cols []coverColumn, placed map[*podClass]int, spare resVec, open int) float64 {
	var classes []*podClass
	for c := range placed {
		classes = append(classes, c)
	}
	slices.SortFunc(classes, func(a, b *podClass) int { return a.id - b.id })
	demand := e.demandOf(classes, placed)
	for r := range demand {
		demand[r] = max(0, demand[r]-spare[r])
	}
	nodes, _ := e.forcedNodes(classes, placed, cols, nil)
	return solveCover(demand, float64(max(0, nodes-open)), cols).bound
}
