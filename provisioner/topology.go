package provisioner

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// groupKind is what a topology group constrains.
type groupKind uint8

const (
	kindSpread groupKind = iota
	kindAffinity
	kindAnti
)

func (k groupKind) String() string {
	switch k {
	case kindSpread:
		return "topology spread"
	case kindAffinity:
		return "pod affinity"
	}
	return "pod anti-affinity"
}

// group is one topology constraint shared by every pod that declares it (100 replicas with the
// same anti-affinity are one group). It counts, per domain of its key, the pods its selector
// matches and (for required anti-affinity) the pods that own it. Hostname groups keep their counts
// on the bins instead, since every bin is its own domain.
type group struct {
	id         int
	kind       groupKind
	key        string
	hostname   bool
	sel        *podSelector
	maxSkew    int32
	minDomains int32
	required   bool
	// filterAlts is the owners' node affinity when nodeAffinityPolicy is Honor (spread only).
	filterAlts []*reqSet
	// filterTols are the owners' tolerations when nodeTaintsPolicy is Honor (spread only).
	filterTols   []corev1.Toleration
	filterTaints bool
	desc         string
}

// domTab interns the values of one topology key.
type domTab struct {
	key   string
	index map[string]int32
	names []string
}

func (t *domTab) id(v string) int32 {
	if i, ok := t.index[v]; ok {
		return i
	}
	i := int32(len(t.names))
	t.index[v] = i
	t.names = append(t.names, v)
	return i
}

func (e *engine) domTab(key string) *domTab {
	if t, ok := e.domTabs[key]; ok {
		return t
	}
	t := &domTab{key: key, index: map[string]int32{}}
	e.domTabs[key] = t
	return t
}

// groupCounts are a group's counts in one run: pods matching its selector and pods owning it, per
// domain of its key (hostname groups count on the bins instead, and total their matching pods).
type groupCounts struct {
	match, owner []int32
	total        int32
}

// grow makes the counters cover every domain of the group's key.
func (c *groupCounts) grow(n int) {
	for len(c.match) < n {
		c.match = append(c.match, 0)
		c.owner = append(c.owner, 0)
	}
}

func (c *groupCounts) clone() groupCounts {
	return groupCounts{match: slices.Clone(c.match), owner: slices.Clone(c.owner), total: c.total}
}

// gc is g's counts in the run.
func (s *state) gc(g *group) *groupCounts { return &s.counts[g.id] }

// groupSpec is a term before interning.
type groupSpec struct {
	kind       groupKind
	key        string
	sel        *podSelector
	maxSkew    int32
	minDomains int32
	required   bool
	filterAlts []*reqSet
	filterTols []corev1.Toleration
	taints     bool
}

func (s groupSpec) canon() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d|%s|%s|%d|%d|%t|", s.kind, s.key, s.sel.canon, s.maxSkew, s.minDomains, s.required)
	if s.filterAlts != nil {
		for _, a := range s.filterAlts {
			fmt.Fprintf(&b, "%d,", a.id)
		}
	} else {
		b.WriteString("-")
	}
	if s.taints {
		b.WriteString("|" + tolerationsCanon(s.filterTols))
	}
	return b.String()
}

// internGroup returns the group for spec, creating it (and counting existing pods) once.
func (e *engine) internGroup(s groupSpec) int32 {
	canon := s.canon()
	if id, ok := e.groupIndex[canon]; ok {
		return id
	}
	g := &group{
		id: len(e.groups), kind: s.kind, key: s.key, hostname: s.key == api.LabelHostname, sel: s.sel,
		maxSkew: s.maxSkew, minDomains: s.minDomains, required: s.required,
		filterAlts: s.filterAlts, filterTols: s.filterTols, filterTaints: s.taints,
	}
	g.desc = describeGroup(g)
	e.groups = append(e.groups, g)
	e.counts = append(e.counts, groupCounts{})
	e.groupIndex[canon] = int32(g.id)
	return int32(g.id)
}

func describeGroup(g *group) string {
	sel := g.sel.sel.String()
	if sel == "" {
		sel = "all pods"
	}
	switch g.kind {
	case kindSpread:
		return fmt.Sprintf("topology spread on %s (maxSkew %d, selector %s)", g.key, g.maxSkew, sel)
	case kindAffinity:
		return fmt.Sprintf("pod affinity on %s to %s", g.key, sel)
	}
	return fmt.Sprintf("pod anti-affinity on %s to %s", g.key, sel)
}

// countsOn reports whether pods on bin b count for a spread group (its node inclusion policies).
func (e *engine) countsOn(g *group, b *bin) bool {
	if g.kind != kindSpread || (g.filterAlts == nil && !g.filterTaints) {
		return true
	}
	if g.filterTaints && untolerated(g.filterTols, e.binTaints(b), true) != nil {
		return false
	}
	if g.filterAlts == nil {
		return true
	}
	for _, alt := range g.filterAlts {
		if b.kind != binNew {
			if alt.matchesLabels(b.labels) {
				return true
			}
			continue
		}
		c := b.pool.compat(alt)
		if c.ok && (c.mask == nil || b.mask == nil || b.mask.intersects(c.mask)) {
			return true
		}
	}
	return false
}

// eligibleDomains returns (computing once) the domains a spread or affinity group's owners could
// use: those of existing nodes passing its node filter, and those any pool could launch into.
func (e *engine) eligibleDomains(g *group) []bool {
	if elig := e.eligible[g.id]; elig != nil {
		return elig
	}
	tab := e.domTab(g.key)
	mark := map[int32]bool{}
	for _, b := range e.bins {
		if b.kind != binNew && !b.dead && e.countsOn(g, b) {
			if v, ok := b.labels[g.key]; ok {
				mark[tab.id(v)] = true
			}
		}
	}
	existingRegional := g.key == api.LabelZone && mark[tab.id(api.RegionalZone)]
	for _, p := range e.pools {
		e.markPoolDomains(g, p, tab, mark)
	}
	if g.key == api.LabelZone && !existingRegional && hasZonal(tab, mark) && e.zonalFitsOwners(g) {
		// Regional capacity (zone "0") is no domain of its own: its VMs' real zone is unknown, and
		// kube-scheduler counts only domains where nodes exist. Counting it would make a zone spread
		// place a share of the pods on VMs in no known zone (9 replicas: 3/2/2/2, not 3/3/3).
		delete(mark, tab.id(api.RegionalZone))
	}
	e.gc(g).grow(len(tab.names))
	elig := make([]bool, len(tab.names))
	for d := range mark {
		elig[d] = true
	}
	e.eligible[g.id] = elig
	return elig
}

func (e *engine) markPoolDomains(g *group, p *pool, tab *domTab, mark map[int32]bool) {
	if g.filterTaints && untolerated(g.filterTols, p.taints, true) != nil {
		return
	}
	masks := []bitset{nil}
	if g.filterAlts != nil {
		masks = masks[:0]
		for _, alt := range g.filterAlts {
			if c := p.compat(alt); c.ok {
				masks = append(masks, c.mask)
			}
		}
	}
	for _, v := range e.poolDomainValues(p, g.key) {
		for _, m := range masks {
			if e.poolCanReach(p, g.key, v, m) {
				mark[tab.id(v)] = true
				break
			}
		}
	}
}

// poolDomainValues lists the values a pool's nodes can take for key.
func (e *engine) poolDomainValues(p *pool, key string) []string {
	if p.defined[key] {
		return p.pairKey(key).values
	}
	if r, ok := p.custom[key]; ok && r.Len() < 1<<20 {
		return r.Values()
	}
	return nil
}

func (e *engine) poolCanReach(p *pool, key, value string, mask bitset) bool {
	if !p.defined[key] {
		return p.custom[key] != nil && p.custom[key].Has(value)
	}
	dm := p.domainMask(key, value)
	if mask == nil {
		return dm.any()
	}
	return dm.intersects(mask)
}

// binDomains returns the domains (indices in the key's table) bin b may be in for key, given mask
// for new bins (nil: the bin's own mask). Existing nodes are in exactly one domain, or none when
// they lack the label.
func (e *engine) binDomains(b *bin, key string, mask bitset) []int32 {
	tab := e.domTab(key)
	if b.kind != binNew {
		if v, ok := b.labels[key]; ok {
			return []int32{tab.id(v)}
		}
		return nil
	}
	if mask == nil {
		mask = b.mask
	}
	p := b.pool
	var out []int32
	if p.defined[key] {
		for _, v := range p.pairKey(key).values {
			if mask == nil || p.domainMask(key, v).intersects(mask) {
				out = append(out, tab.id(v))
			}
		}
		return out
	}
	r, ok := b.creqs[key]
	if !ok {
		r, ok = p.custom[key]
	}
	if ok && r.Len() < 1<<20 {
		for _, v := range r.Values() {
			out = append(out, tab.id(v))
		}
	}
	return out
}

// cachedDomains is binDomains for the bin's current state, cached until the bin narrows.
func (e *engine) cachedDomains(b *bin, key string) []int32 {
	for _, d := range b.domCache {
		if d.key == key {
			return d.doms
		}
	}
	doms := e.binDomains(b, key, nil)
	b.domCache = append(b.domCache, domEntry{key: key, doms: doms})
	return doms
}

// zonalFitsOwners reports whether some pool has a size offered in a real zone with room for a pod
// of a class that owns g: if none has, only regional capacity can take them, and the regional zone
// stays a domain.
func (e *engine) zonalFitsOwners(g *group) bool {
	for _, c := range e.classes {
		if !e.owns(c, int32(g.id)) {
			continue
		}
		for _, p := range e.pools {
			for _, pt := range p.types {
				if !c.req.fits(pt.alloc) {
					continue
				}
				for _, pr := range p.pairs[pt.pair0 : pt.pair0+pt.npair] {
					if pr.zone != api.RegionalZone {
						return true
					}
				}
			}
		}
	}
	return false
}

// owns reports whether any of the class's variants checks group gi.
func (e *engine) owns(c *podClass, gi int32) bool {
	for _, v := range e.view(c).variants {
		if slices.Contains(v.groups, gi) {
			return true
		}
	}
	return false
}

// hasZonal reports whether mark holds a zone other than the regional "0".
func hasZonal(tab *domTab, mark map[int32]bool) bool {
	for d, ok := range mark {
		if ok && tab.names[d] != api.RegionalZone {
			return true
		}
	}
	return false
}
