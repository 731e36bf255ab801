package provisioner

// quota is how many pods of a shape a pre-opened NodeClaim was planned to hold.
type quota struct {
	s *shape
	n int
}

// openFleet opens, empty, the NodeClaims the guidance LP plans (its patterns rounded down), each with
// a quota per shape. Placement offers a pod the NodeClaims planned for its shape first, so the
// fleet the LP chose is what gets filled; what rounding leaves over, or constraints refuse, goes
// to the usual first fit and new NodeClaims. NodeClaims still empty at the end are dropped.
//
// The pods the rounding leaves over are planned again and that plan is rounded up, so the fleet
// covers every pod: otherwise the leftovers, typically pods that need a node each, would open
// NodeClaims of their own with nothing left to share them.
func (e *engine) openFleet(p *pool, pats []cgPattern, xs []float64, shapes []*shape, types []int, caps []int) {
	left := make([]int, len(shapes))
	for s, sh := range shapes {
		left[s] = sh.n
	}
	for _, u := range roundPatterns(pats, xs, left, false) {
		if !e.openPlanned(p, u, shapes) {
			return
		}
		for s, n := range u.counts {
			left[s] -= n
		}
	}
	pats, xs = e.cgSolveCaps(p, types, shapes, left, caps)
	for _, u := range roundPatterns(pats, xs, left, true) {
		if !e.openPlanned(p, u, shapes) {
			return
		}
	}
}

func (e *engine) openPlanned(p *pool, pt cgPattern, shapes []*shape) bool {
	ptype := p.types[pt.t]
	if !e.withinLimits(p, ptype.limitCap, nil) {
		return false
	}
	b := e.freshBin(p)
	b.target, b.cap, b.charge = pt.t, ptype.alloc, ptype.limitCap
	e.charge(p, b.charge, 1)
	for s, n := range pt.counts {
		if n > 0 {
			b.quota = append(b.quota, quota{s: shapes[s], n: n})
			e.quotaBins[shapes[s]] = append(e.quotaBins[shapes[s]], b)
		}
	}
	e.register(b)
	return true
}

// tryQuota places pods of c on the NodeClaims planned for its shape.
func (e *engine) tryQuota(c *podClass, vi, want int) int {
	s := e.shapeOf[c]
	if s == nil {
		return 0
	}
	list := e.quotaBins[s]
	for i := 0; i < len(list); i++ {
		b := list[i]
		q := b.quotaFor(s)
		if q == nil || q.n == 0 || b.dead {
			list = append(list[:i], list[i+1:]...)
			i--
			continue
		}
		pl := e.check(b, c, vi, min(want, q.n))
		if pl.n == 0 {
			continue
		}
		q.n -= pl.n
		e.commit(pl)
		e.quotaBins[s] = list
		return pl.n
	}
	e.quotaBins[s] = list
	return 0
}

func (b *bin) quotaFor(s *shape) *quota {
	for i := range b.quota {
		if b.quota[i].s == s {
			return &b.quota[i]
		}
	}
	return nil
}

// dropEmpty releases the planned NodeClaims nothing was placed on.
func (e *engine) dropEmpty() {
	for _, b := range e.bins {
		e.retire(b)
	}
}
