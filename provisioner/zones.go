package provisioner

import (
	"github.com/napkit/napkit/api"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
)

// checkZoneGroups applies the groups keyed on anything but the hostname (zone, capacity type,
// custom keys): each computes the domains the pod may use, the bin's possible domains are
// intersected with them, and a new NodeClaim is pinned to one domain when a spread, an affinity or
// the pod's own anti-affinity needs it to be exact. Anti-affinity that other pods hold against this
// one (inverse) only narrows.
func (e *engine) checkZoneGroups(pl *placement, v *variant) bool {
	for _, key := range e.zoneKeys(pl.c, pl.vi) {
		if !e.checkZoneKey(pl, v, key) {
			return false
		}
	}
	return true
}

// zoneKeys lists (once per variant) the non-hostname keys the class's active and inverse groups use.
func (e *engine) zoneKeys(c *podClass, vi int) []string {
	cv := e.view(c)
	if cv.zkeys == nil {
		cv.zkeys = make([][]string, len(cv.variants))
	}
	if keys := cv.zkeys[vi]; keys != nil {
		return keys
	}
	seen := map[string]bool{}
	keys := []string{}
	for _, list := range [][]int32{cv.variants[vi].groups, cv.inverse} {
		for _, gi := range list {
			if g := e.groups[gi]; !g.hostname && !seen[g.key] {
				seen[g.key] = true
				keys = append(keys, g.key)
			}
		}
	}
	cv.zkeys[vi] = keys
	return keys
}

// zoneFilter is the domains a pod may use for one key, and what decided it.
type zoneFilter struct {
	allowed  []int32
	pin      bool
	spread   *group
	code     Code
	needsDom bool  // a spread or affinity: a node without the key cannot serve
	group    int32 // the last group that removed a domain (for explanations)
}

func (e *engine) checkZoneKey(pl *placement, v *variant, key string) bool {
	b := pl.b
	var doms []int32
	if b.kind == binNew && pl.mask != nil {
		doms = e.binDomains(b, key, pl.mask)
	} else {
		doms = e.cachedDomains(b, key)
	}
	zf := zoneFilter{allowed: append([]int32(nil), doms...), code: CodeTopologySpread, group: -1}
	if !e.filterOwned(pl, v, key, &zf) {
		return false
	}
	e.filterInverse(pl.c, key, &zf)
	if len(doms) == 0 && !zf.needsDom {
		return true
	}
	if len(zf.allowed) == 0 {
		e.lastGroup = zf.group
		pl.fail(zf.code, false)
		return false
	}
	chosen := zf.allowed
	if key == api.LabelZone && (zf.pin || zf.spread != nil) {
		chosen = e.preferZonal(chosen)
		zf.allowed = chosen // pickDomain chooses among these
	}
	if b.kind == binNew && (zf.pin || zf.spread != nil) && len(chosen) > 1 {
		chosen = []int32{e.pickDomain(pl, key, &zf)}
	}
	if len(chosen) < len(doms) {
		e.narrowTo(pl, key, chosen)
	}
	if len(chosen) == 1 {
		e.capSpread(pl, v, key, chosen[0])
	}
	return true
}

func (e *engine) filterOwned(pl *placement, v *variant, key string, zf *zoneFilter) bool {
	c := pl.c
	for _, gi := range v.groups {
		g := e.groups[gi]
		if g.hostname || g.key != key {
			continue
		}
		gc := e.gc(g)
		gc.grow(len(e.domTab(key).names))
		self := c.matches[gi]
		before := len(zf.allowed)
		switch g.kind {
		case kindAnti:
			zf.allowed = keep(zf.allowed, func(d int32) bool { return gc.match[d] == 0 })
			zf.pin, zf.code = true, CodePodAntiAffinity
			if self {
				pl.n = 1
			}
		case kindAffinity:
			zf.needsDom, zf.pin = true, true
			cand := keep(append([]int32(nil), zf.allowed...), func(d int32) bool { return gc.match[d] > 0 })
			if len(cand) == 0 {
				if !self || e.eligibleTotal(g) > 0 {
					e.lastGroup = gi
					pl.fail(CodePodAffinity, false)
					return false
				}
				continue // bootstrap: the first pod of a self-affine group picks the domain
			}
			zf.allowed = cand
		case kindSpread:
			zf.needsDom = true
			elig := e.eligibleDomains(g)
			lo, skew, s := e.globalMin(g), g.maxSkew, int32(0)
			if self {
				s = 1
			}
			zf.allowed = keep(zf.allowed, func(d int32) bool {
				return int(d) < len(elig) && elig[d] && gc.match[d]+s-lo <= skew
			})
			if zf.spread == nil {
				zf.spread = g
			}
			zf.code = CodeTopologySpread
		}
		if len(zf.allowed) < before {
			zf.group = gi
		}
	}
	return true
}

func (e *engine) filterInverse(c *podClass, key string, zf *zoneFilter) {
	for _, gi := range e.view(c).inverse {
		g := e.groups[gi]
		if g.hostname || g.key != key {
			continue
		}
		gc := e.gc(g)
		gc.grow(len(e.domTab(key).names))
		before := len(zf.allowed)
		zf.allowed = keep(zf.allowed, func(d int32) bool { return gc.owner[d] == 0 })
		if len(zf.allowed) < before {
			zf.code, zf.group = CodePodAntiAffinity, gi
		}
	}
}

// globalMin is the spread's minimum count over its eligible domains; 0 when fewer domains than
// minDomains exist (Kubernetes then treats the minimum as zero).
func (e *engine) globalMin(g *group) int32 {
	gc := e.gc(g)
	elig := e.eligibleDomains(g)
	n, lo := int32(0), int32(math.MaxInt32)
	for d, ok := range elig {
		if ok {
			n++
			lo = min(lo, gc.match[d])
		}
	}
	if n == 0 || n < g.minDomains {
		return 0
	}
	return lo
}

func (e *engine) eligibleTotal(g *group) int32 {
	gc := e.gc(g)
	var t int32
	for d, ok := range e.eligibleDomains(g) {
		if ok {
			t += gc.match[d]
		}
	}
	return t
}

// pickDomain chooses the domain to pin a new NodeClaim to: for a spread the least-populated
// domain, for an affinity the most-populated, then the cheapest for the bin's pool, then a
// seed-dependent but deterministic order.
func (e *engine) pickDomain(pl *placement, key string, zf *zoneFilter) int32 {
	tab := e.domTab(key)
	best, bestScore := zf.allowed[0], [3]float64{math.Inf(1)}
	for _, d := range zf.allowed {
		var count float64
		if zf.spread != nil {
			count = float64(e.gc(zf.spread).match[d])
		}
		score := [3]float64{count, e.domainPrice(pl.b.pool, key, tab.names[d]), float64(e.seedRank(tab.names[d]) >> 11)}
		if less3(score, bestScore) {
			best, bestScore = d, score
		}
	}
	return best
}

func less3(a, b [3]float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// domainPrice is the cheapest pair price a pool offers in a domain (computed once).
func (e *engine) domainPrice(p *pool, key, value string) float64 {
	k := p.name + "\x00" + key + "\x00" + value
	if v, ok := e.domPrices[k]; ok {
		return v
	}
	price := math.Inf(1)
	if p.defined[key] {
		p.domainMask(key, value).forEach(func(i int) { price = min(price, p.pairs[i].price) })
	} else {
		price = 0
	}
	e.domPrices[k] = price
	return price
}

// seedRank orders equal choices by a hash of the seed and the value: deterministic for one seed.
func (e *engine) seedRank(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strconv.FormatUint(e.opts.Seed, 10)))
	h.Write([]byte{0})
	h.Write([]byte(s))
	return h.Sum64()
}

// narrowTo restricts the placement's bin to the chosen domains of key.
func (e *engine) narrowTo(pl *placement, key string, chosen []int32) {
	b := pl.b
	p := b.pool
	tab := e.domTab(key)
	if b.kind != binNew {
		return
	}
	if !p.defined[key] {
		names := make([]string, len(chosen))
		for i, d := range chosen {
			names[i] = tab.names[d]
		}
		pl.pins = append(pl.pins, keyReq{key: key, r: inRequirement(key, names)})
		return
	}
	var union bitset
	for _, d := range chosen {
		dm := p.domainMask(key, tab.names[d])
		if union == nil {
			union = dm.clone()
			continue
		}
		for i := range union {
			union[i] |= dm[i]
		}
	}
	if m := pl.curMask(); m != nil {
		union = m.and(union)
	}
	pl.mask = union
}

// capSpread limits how many pods of a self-matching spread may land in one domain at once.
func (e *engine) capSpread(pl *placement, v *variant, key string, d int32) {
	for _, gi := range v.groups {
		g := e.groups[gi]
		if g.hostname || g.key != key || g.kind != kindSpread || !pl.c.matches[gi] {
			continue
		}
		room := int(g.maxSkew + e.globalMin(g) - e.gc(g).match[d])
		pl.n = max(1, min(pl.n, room))
	}
}

func keep(ds []int32, f func(int32) bool) []int32 {
	out := ds[:0]
	for _, d := range ds {
		if f(d) {
			out = append(out, d)
		}
	}
	return out
}

// preferZonal drops the regional zone "0" from the domains a pod with a zone spread or zone
// (anti-)affinity may use, unless nothing else is left: such a pod goes to a real zone unless only
// regional capacity can take it (a regional VM's zone is unknown, so it adds no zone redundancy).
func (e *engine) preferZonal(doms []int32) []int32 {
	tab := e.domTab(api.LabelZone)
	regional, ok := tab.index[api.RegionalZone]
	if !ok || !slices.Contains(doms, regional) || len(doms) == 1 {
		return doms
	}
	return keep(slices.Clone(doms), func(d int32) bool { return d != regional })
}
