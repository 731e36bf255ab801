package provisioner

import (
	"fmt"
	"strings"
)

// guideKey names a shape of pending pods in a pool.
type guideKey struct {
	pool   int
	reqset int
	req    string
}

// computeGuidance plans the whole fleet before placing anything: per pool and node-requirement set,
// column generation over every pending pod's shape (per-node groups included, so pods that need a
// node each are spread over that many patterns) finds the cheapest fractional mix of node patterns.
// A new NodeClaim opened for a pod is then given, as its target, the type of the pattern the LP
// uses most for that pod's shape; first-fit then fills it with whatever the constraints allow.
//
// Each class is planned in the first pool (by weight) that can serve it, as placement would
// prefer that pool too.
func (e *engine) computeGuidance() {
	planned := map[*podClass]bool{}
	for _, p := range e.pools {
		var classes []*podClass
		for _, c := range e.classes {
			if !planned[c] && c.pre == "" && e.remaining(c) > 0 && e.poolServes(p, c) && untolerated(c.tols, p.taints, true) == nil {
				classes = append(classes, c)
				planned[c] = true
			}
		}
		for _, group := range e.guideGroups(p, classes) {
			e.guideGroup(p, group)
		}
	}
}

// guideGroups splits classes by node requirements (most relaxed variant) and into shapes with their
// per-node groups.
func (e *engine) guideGroups(p *pool, classes []*podClass) []guideSet {
	bySet := map[int]*guideSet{}
	var order []int
	for _, c := range classes {
		rs := e.view(c).variants[len(e.view(c).variants)-1].reqset
		gs, ok := bySet[rs.id]
		if !ok {
			gs = &guideSet{reqset: rs, byKey: map[string]*shape{}, groupIdx: map[string]int{}}
			bySet[rs.id] = gs
			order = append(order, rs.id)
		}
		gs.add(e, c)
	}
	out := make([]guideSet, 0, len(order))
	for _, id := range order {
		out = append(out, *bySet[id])
	}
	return out
}

// guideSet is the shapes of one node-requirement set.
type guideSet struct {
	reqset   *reqSet
	shapes   []*shape
	byKey    map[string]*shape
	groupIdx map[string]int
	caps     []int
}

func (gs *guideSet) add(e *engine, c *podClass) {
	gkey, cap := e.perNodeGroup(c)
	group := -1
	if gkey != "" {
		g, ok := gs.groupIdx[gkey]
		if !ok {
			g = len(gs.caps)
			gs.groupIdx[gkey] = g
			gs.caps = append(gs.caps, cap)
		}
		group = g
	}
	key := resKey(c.req) + "|" + gkey
	s, ok := gs.byKey[key]
	if !ok {
		s = &shape{req: c.req, reqset: gs.reqset, group: group}
		gs.byKey[key] = s
		gs.shapes = append(gs.shapes, s)
	}
	s.classes = append(s.classes, c)
	s.n += e.remaining(c)
}

// perNodeGroup names the per-node limit a class's pods share: required hostname anti-affinity to
// their own kind, or host ports (one per node either way). Empty when there is none. (Hostname
// spreads are left to placement: the plan is a guide, not a constraint.)
func (e *engine) perNodeGroup(c *podClass) (string, int) {
	key, cap := "", 0
	if len(c.ports) > 0 {
		parts := make([]string, len(c.ports))
		for i, hp := range c.ports {
			parts[i] = hp.String()
		}
		key, cap = "ports:"+strings.Join(parts, ","), 1
	}
	for _, gi := range c.terms.required {
		g := e.groups[gi]
		if g.hostname && c.matches[gi] && g.kind == kindAnti {
			return fmt.Sprintf("group:%d", gi), 1
		}
	}
	return key, cap
}

func (e *engine) guideGroup(p *pool, gs guideSet) {
	mask := p.compat(gs.reqset).mask
	types := e.paretoTypes(p, mask, gs.shapes)
	if len(types) == 0 {
		return
	}
	counts := make([]int, len(gs.shapes))
	for i, s := range gs.shapes {
		counts[i] = s.n
	}
	pats, xs := e.cgSolveCaps(p, types, gs.shapes, counts, gs.caps)
	for _, sh := range gs.shapes {
		for _, c := range sh.classes {
			e.shapeOf[c] = sh
		}
	}
	e.openFleet(p, pats, xs, gs.shapes, types, gs.caps)
	for s, sh := range gs.shapes {
		best, bestX := -1, 0.0
		for j, pt := range pats {
			if pt.counts[s] > 0 && j < len(xs) && xs[j] > bestX+1e-9 {
				best, bestX = pt.t, xs[j]
			}
		}
		if best >= 0 {
			e.guide[guideKey{pool: p.idx, reqset: gs.reqset.id, req: resKey(sh.req)}] = best
		}
	}
}

// guidedTarget returns the LP's preferred type for a fresh bin of class c, or -1.
func (e *engine) guidedTarget(b *bin, c *podClass) int {
	if e.baseline || len(b.pods) > 0 || b.used[resPods] > 0 {
		return -1
	}
	rs := e.view(c).variants[len(e.view(c).variants)-1].reqset
	if t, ok := e.guide[guideKey{pool: b.pool.idx, reqset: rs.id, req: resKey(c.req)}]; ok {
		return t
	}
	return -1
}
