package provisioner

// commit applies a successful placement: narrows the bin (re-counting its pods' topology where
// the narrowing changes their domains), moves the target, and records the pods.
func (e *engine) commit(pl *placement) {
	b, c, n := pl.b, pl.c, pl.n
	e.touch(b)
	if b.kind == binNew {
		e.applyNarrowing(b, pl)
		e.applyTarget(b, pl)
		b.relaxed = b.relaxed || pl.relaxed
	}
	q := &e.queues[c.id]
	for range n {
		pi := q.pods[q.next]
		q.next++
		e.placed[pi.idx] = podPlace{bin: b, variant: pl.vi, at: e.placeClock}
		e.placeClock++
		b.pods = append(b.pods, pi)
	}
	b.used.addScaled(c.req, int64(n))
	if len(c.ports) > 0 {
		b.ports = append(b.ports, c.ports...)
	}
	e.record(b, c, int32(n))
	e.tree.update(b.id, e.binFree(b))
}

// record adds n pods of class c to the bin's topology counts.
func (e *engine) record(b *bin, c *podClass, n int32) {
	for _, g := range e.view(c).hMatch {
		b.addHost(g, n, 0)
		e.counts[g].total += n
	}
	for _, g := range c.hOwn {
		b.addHost(g, 0, n)
	}
	e.contrib(b, c, n)
	for i := range b.classes {
		if b.classes[i].c == c {
			b.classes[i].n += n
			return
		}
	}
	b.classes = append(b.classes, classCount{c: c, n: n})
}

// unrecord is record's inverse, for pods taken off a bin.
func (e *engine) unrecord(b *bin, c *podClass, n int32) {
	for _, g := range e.view(c).hMatch {
		b.addHost(g, -n, 0)
		e.counts[g].total -= n
	}
	for _, g := range c.hOwn {
		b.addHost(g, 0, -n)
	}
	e.contrib(b, c, -n)
	for i := range b.classes {
		if b.classes[i].c == c {
			b.classes[i].n -= n
			if b.classes[i].n == 0 {
				b.classes = append(b.classes[:i], b.classes[i+1:]...)
			}
			return
		}
	}
}

// contrib adds n pods of class c on bin b to the zone-like groups: a matching pod counts in its
// domain when the bin has exactly one (spread, affinity), or in every domain it may still land in
// (anti-affinity, pessimistically, as Karpenter does); an owner of required anti-affinity blocks
// every such domain.
func (e *engine) contrib(b *bin, c *podClass, n int32) {
	for _, gi := range e.view(c).zMatch {
		g := e.groups[gi]
		doms := e.cachedDomains(b, g.key)
		e.gc(g).grow(len(e.domTab(g.key).names))
		if g.kind == kindAnti {
			for _, d := range doms {
				e.gc(g).match[d] += n
			}
		} else if len(doms) == 1 && e.countsOn(g, b) {
			e.gc(g).match[doms[0]] += n
		}
	}
	for _, gi := range c.zOwn {
		g := e.groups[gi]
		doms := e.cachedDomains(b, g.key)
		e.gc(g).grow(len(e.domTab(g.key).names))
		for _, d := range doms {
			e.gc(g).owner[d] += n
		}
	}
}

// applyNarrowing narrows a new NodeClaim's mask and requirements; when its pods already count in
// zone-like groups, their counts move with the domains.
func (e *engine) applyNarrowing(b *bin, pl *placement) {
	changed := pl.mask != nil && (b.mask == nil || !b.mask.equal(pl.mask))
	for _, kr := range append(pl.creqs, pl.pins...) {
		if have, ok := b.creqs[kr.key]; !ok || !have.Equal(have.Intersection(kr.r)) {
			changed = true
		}
	}
	if !changed {
		return
	}
	recount := e.hasZoneCounts(b)
	if recount {
		for _, cc := range b.classes {
			e.contrib(b, cc.c, -cc.n)
		}
	}
	if pl.mask != nil {
		b.mask = pl.mask
	}
	for _, kr := range append(pl.creqs, pl.pins...) {
		b.creqs.Add(kr.r)
	}
	b.domCache = b.domCache[:0]
	if recount {
		for _, cc := range b.classes {
			e.contrib(b, cc.c, cc.n)
		}
	}
}

func (e *engine) hasZoneCounts(b *bin) bool {
	for _, cc := range b.classes {
		if len(e.view(cc.c).zMatch) > 0 || len(cc.c.zOwn) > 0 {
			return true
		}
	}
	return false
}

// applyTarget moves the bin's target (and its charge on the pool's limits).
func (e *engine) applyTarget(b *bin, pl *placement) {
	p := b.pool
	if b.growable {
		if b.fitList == nil {
			b.charge = e.maxCharge(p, pl.fitList)
			e.charge(p, b.charge, 1)
		}
		b.fitList = pl.fitList
		b.cap = e.maxAlloc(p, b.fitList)
		return
	}
	if pl.target == b.target {
		return
	}
	if b.charge != nil {
		e.charge(p, b.charge, -1)
	}
	b.target = pl.target
	b.charge = p.types[b.target].limitCap
	e.charge(p, b.charge, 1)
	b.cap = p.types[b.target].alloc
}

// maxCharge is the per-entry maximum limit usage over types: what a baseline bin reserves.
func (e *engine) maxCharge(p *pool, types []int32) []int64 {
	out := make([]int64, len(p.limits))
	for _, t := range types {
		for i, v := range p.types[t].limitCap {
			out[i] = max(out[i], v)
		}
	}
	return out
}

func (e *engine) maxAlloc(p *pool, types []int32) resVec {
	out := e.rt.zero()
	for _, t := range types {
		for i, v := range p.types[t].alloc {
			out[i] = max(out[i], v)
		}
	}
	return out
}

// binFree is the vector the fit tree indexes: what the bin could still take (nothing when closed).
func (p *problem) binFree(b *bin) resVec {
	f := p.rt.zero()
	if b.closed || b.dead {
		for i := range f {
			f[i] = -1
		}
		return f
	}
	for i := range f {
		f[i] = b.cap[i] - b.used[i]
	}
	return f
}
