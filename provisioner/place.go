package provisioner

// placement is a checked decision to put n pods of a class on a bin, with the narrowing of the bin
// it implies. A failed check leaves n at 0 and says why (code) and whether the failure is permanent
// for this class on this bin (mono): bins only fill up and narrow, so resource, requirement, taint,
// port and hostname anti-affinity failures never heal, and the class's scan cursor can skip them.
type placement struct {
	b       *bin
	c       *podClass
	vi      int
	n       int
	mask    bitset // new mask, nil when unchanged
	target  int
	fitList []int32
	creqs   []keyReq
	pins    []keyReq // custom-key domain narrowing
	relaxed bool
	code    Code
	mono    bool
}

func (pl *placement) fail(code Code, mono bool) *placement {
	pl.n, pl.code, pl.mono = 0, code, mono
	return pl
}

// curMask is the bin's mask as narrowed so far by this placement.
func (pl *placement) curMask() bitset {
	if pl.mask != nil {
		return pl.mask
	}
	return pl.b.mask
}

// check decides whether up to want pods of class c (variant vi) can go on bin b now.
func (e *engine) check(b *bin, c *podClass, vi, want int) *placement {
	pl := &e.scratch
	*pl = placement{b: b, c: c, vi: vi, n: min(want, e.remaining(c)), target: b.target}
	if pl.n <= 0 {
		return pl.fail(CodeResources, false)
	}
	v := e.view(c).variants[vi]
	if b.closed || b.dead {
		return pl.fail(CodeResources, true)
	}
	if !e.tolerates(c, v, b) {
		return pl.fail(CodeTaint, true)
	}
	if !e.checkRequirements(pl, v) {
		return pl.fail(CodeRequirements, true)
	}
	if len(c.ports) > 0 {
		if _, clash := portClash(c.ports, b.ports); clash {
			return pl.fail(CodeHostPort, true)
		}
		pl.n = 1 // pods of one class bind the same ports
	}
	if !e.checkHostnameGroups(pl, v) || !e.checkZoneGroups(pl, v) {
		return pl
	}
	if !e.checkCapacity(pl) {
		return pl
	}
	return pl
}

func (e *engine) checkRequirements(pl *placement, v *variant) bool {
	b := pl.b
	if b.kind != binNew {
		return e.nodeMatches(v.reqset, b)
	}
	comp := b.pool.compat(v.reqset)
	if !comp.ok || !customCompatible(b.creqs, comp.custom) {
		return false
	}
	pl.creqs = comp.custom
	if comp.mask == nil {
		return true
	}
	if b.mask == nil {
		pl.mask = comp.mask
		return true
	}
	if b.mask.subsetOf(comp.mask) {
		return true
	}
	m := b.mask.and(comp.mask)
	if !m.any() {
		return false
	}
	pl.mask = m
	return true
}

// checkHostnameGroups applies hostname-keyed groups: every bin is its own domain and the global
// minimum of a hostname spread is 0 (a new node can always be made).
func (e *engine) checkHostnameGroups(pl *placement, v *variant) bool {
	b, c := pl.b, pl.c
	for _, gi := range v.groups {
		g := e.groups[gi]
		if !g.hostname {
			continue
		}
		var match int32
		if h := b.hostCount(gi); h != nil {
			match = h.match
		}
		self := c.matches[gi]
		switch g.kind {
		case kindSpread:
			if !self {
				if match > g.maxSkew {
					e.lastGroup = gi
					pl.fail(CodeTopologySpread, true)
					return false
				}
				continue
			}
			room := int(g.maxSkew - match)
			if room < 1 {
				e.lastGroup = gi
				pl.fail(CodeTopologySpread, true)
				return false
			}
			pl.n = min(pl.n, room)
		case kindAnti:
			if match > 0 {
				e.lastGroup = gi
				pl.fail(CodePodAntiAffinity, true)
				return false
			}
			if self {
				pl.n = 1
			}
		case kindAffinity:
			if match == 0 && !(self && e.gc(g).total == 0) {
				e.lastGroup = gi
				pl.fail(CodePodAffinity, false)
				return false
			}
		}
	}
	for _, gi := range e.view(c).inverse {
		if g := e.groups[gi]; g.hostname {
			if h := b.hostCount(gi); h != nil && h.owner > 0 {
				e.lastGroup = gi
				pl.fail(CodePodAntiAffinity, true)
				return false
			}
		}
	}
	return true
}
