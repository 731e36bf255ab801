package provisioner

import (
	"cmp"
	"math"
	"slices"
)

// chooseTarget picks the instance type a new NodeClaim is packed towards: the feasible type with
// the lowest price per unit of value, where value is priced by the duals of the pool's covering LP
// (what the resources the type offers are worth in the cheapest fractional fleet for the pending
// demand). The type must be in the bin's mask, fit what the bin holds plus one pod of the class,
// keep its DaemonSets' host ports free and fit the pool's limits. A pod whose self-affinity on the
// hostname puts its whole group on one node asks for a type that fits the group.
func (e *engine) chooseTarget(b *bin, mask bitset, c *podClass) (int, Code) {
	p := b.pool
	need := b.used.clone()
	need.addScaled(c.req, 1)
	if e.forceTarget >= 0 {
		return e.firstFeasible(b, mask, need, c, []int{e.forceTarget})
	}
	if t := e.guidedTarget(b, c); t >= 0 {
		if got, _ := e.firstFeasible(b, mask, need, c, []int{t}); got >= 0 {
			return got, ""
		}
	}
	if hint := e.groupHint(b, c); hint != nil {
		if t, _ := e.firstFeasible(b, mask, hint, c, e.priceOrder(p)); t >= 0 {
			return t, ""
		}
	}
	return e.firstFeasible(b, mask, need, c, e.targetOrder(p))
}

func (e *engine) firstFeasible(b *bin, mask bitset, need resVec, c *podClass, order []int) (int, Code) {
	p := b.pool
	code := CodeResources
	for _, t := range order {
		pt := p.types[t]
		if !p.typeIn(mask, t) || !need.fits(pt.alloc) {
			continue
		}
		if dsPortClash(pt, c.ports) {
			code = laterCode(code, CodeHostPort)
			continue
		}
		if pt.ds != nil && len(pt.ds.ports) > 0 {
			if _, clash := portClash(b.ports, pt.ds.ports); clash {
				code = laterCode(code, CodeHostPort)
				continue
			}
		}
		if !e.withinLimits(p, pt.limitCap, b.charge) {
			code = laterCode(code, CodeLimits)
			continue
		}
		return t, ""
	}
	return -1, code
}

func laterCode(a, b Code) Code {
	if b.stage() > a.stage() {
		return b
	}
	return a
}

// groupHint is, for a fresh bin and a class whose required hostname affinity selects itself, the
// requests of every pending pod of that group: they must all share this node.
func (e *engine) groupHint(b *bin, c *podClass) resVec {
	if len(b.pods) > 0 {
		return nil
	}
	for _, gi := range c.terms.required {
		g := e.groups[gi]
		if g.kind != kindAffinity || !g.hostname || !c.matches[gi] || e.gc(g).total > 0 {
			continue
		}
		hint := e.rt.zero()
		for _, o := range e.classes {
			if o.matches[gi] && o.pre == "" {
				hint.addScaled(o.req, int64(e.remaining(o)))
			}
		}
		return hint
	}
	return nil
}

// priceOrder lists a pool's types cheapest first (the pool keeps them in that order).
func (e *engine) priceOrder(p *pool) []int {
	if o, ok := e.priceOrders[p.idx]; ok {
		return o
	}
	o := make([]int, len(p.types))
	for i := range o {
		o[i] = i
	}
	e.priceOrders[p.idx] = o
	return o
}

// targetOrder lists a pool's types by price per dual value, best first (computed once per pool
// from the duals of computeDuals).
func (e *engine) targetOrder(p *pool) []int {
	if o, ok := e.targetOrders[p.idx]; ok {
		return o
	}
	o := e.rankTypes(p, e.duals[p.idx])
	e.targetOrders[p.idx] = o
	return o
}

// rankTypes orders types by price / (y·alloc + yNodes); ties go to the larger type, then the name.
func (e *engine) rankTypes(p *pool, d coverResult) []int {
	ratio := make([]float64, len(p.types))
	for t, pt := range p.types {
		ratio[t] = typeRatio(pt, d)
	}
	o := slices.Clone(e.priceOrder(p))
	slices.SortStableFunc(o, func(a, b int) int {
		ta, tb := p.types[a], p.types[b]
		return cmp.Or(cmp.Compare(ratio[a], ratio[b]), cmp.Compare(tb.alloc[resCPU], ta.alloc[resCPU]),
			cmp.Compare(tb.alloc[resMemory], ta.alloc[resMemory]), cmp.Compare(ta.name, tb.name))
	})
	return o
}

func typeRatio(pt *ptype, d coverResult) float64 {
	value := d.yNodes
	for r, y := range d.y {
		value += y * float64(pt.alloc[r])
	}
	if !d.ok || value <= 0 {
		// Without prices, fall back to price per CPU.
		if pt.alloc[resCPU] <= 0 {
			return math.Inf(1)
		}
		return pt.minPrice / float64(pt.alloc[resCPU]) * 1e9
	}
	return pt.minPrice / value
}

// computeDuals prices resources per pool from all pending pods the pool could serve, with a node
// row for the pods that each need a node of their own.
func (e *engine) computeDuals() {
	for _, p := range e.pools {
		demand, nodes := e.poolDemand(p, func(*podClass) bool { return true })
		e.duals[p.idx] = solveCover(demand, float64(nodes), e.poolColumns(p))
	}
}

// poolDemand sums the remaining requests of the classes (accepted by keep) that the pool could
// serve, and the largest number of pods among them that must each have their own node.
func (e *engine) poolDemand(p *pool, keep func(*podClass) bool) (resVec, int) {
	demand := e.rt.zero()
	nodes := 0
	for _, c := range e.classes {
		if c.pre != "" || e.remaining(c) == 0 || !keep(c) || !e.poolServes(p, c) {
			continue
		}
		demand.addScaled(c.req, int64(e.remaining(c)))
	}
	for _, f := range e.forced {
		nodes = max(nodes, f)
	}
	return demand, nodes
}

// poolServes reports whether some variant's requirements are compatible with the pool.
func (e *engine) poolServes(p *pool, c *podClass) bool {
	for _, v := range e.view(c).variants {
		if p.compat(v.reqset).ok {
			return true
		}
	}
	return false
}

func (e *engine) poolColumns(p *pool) []coverColumn {
	cols := make([]coverColumn, len(p.types))
	for t, pt := range p.types {
		cols[t] = coverColumn{price: pt.minPrice, alloc: pt.alloc, counts: true}
	}
	return cols
}
