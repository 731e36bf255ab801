package provisioner

import "strings"

// simTopology is what the bound pods of each existing node and in-flight claim add to the
// topology groups, kept so that taking a node away (and putting it back) costs its own pods, not a
// recount of the cluster.
type simTopology struct {
	// byBin[bin id] are the bin's contributions, as countBound made them.
	byBin [][]boundContrib
	// owners[group] counts live bound pods whose required anti-affinity is the group: the Solve
	// input of a question interns the group (and checks pods against it) while one remains.
	owners []int32
	// nodeDoms[group][domain] counts the fixed bins in the domain that count for the group;
	// poolDoms[group][domain] says a pool can launch there. Both are built on first use.
	nodeDoms [][]int32
	poolDoms [][]bool
	pools    []*pool // every pool, whatever a question allows
}

// boundContrib is what one bin's bound pods add to one group: matching pods and owners, in the
// bin's domain of the group's key (dom < 0: a hostname group, or the bin lacks the key).
type boundContrib struct {
	g, dom       int32
	match, owner int32
}

func newSimTopology(e *engine) *simTopology {
	t := &simTopology{byBin: make([][]boundContrib, e.fixedBins), owners: make([]int32, len(e.groups)),
		nodeDoms: make([][]int32, len(e.groups)), poolDoms: make([][]bool, len(e.groups)), pools: e.pools}
	matched := map[string][]int32{}
	for _, b := range e.bins[:e.fixedBins] {
		t.byBin[b.id] = t.binContribs(e, b, matched)
		for _, c := range t.byBin[b.id] {
			t.owners[c.g] += c.owner
		}
	}
	return t
}

// binContribs mirrors countBound for one bin. Which groups select a pod depends only on its
// namespace and the labels selectors read, so the matching is done once per such key.
func (t *simTopology) binContribs(e *engine, b *bin, matched map[string][]int32) []boundContrib {
	var out []boundContrib
	at := map[int32]int{}
	add := func(gi int32, match, owner int32) {
		i, ok := at[gi]
		if !ok {
			i = len(out)
			at[gi] = i
			out = append(out, boundContrib{g: gi, dom: e.binDomain(b, e.groups[gi])})
		}
		out[i].match += match
		out[i].owner += owner
	}
	for _, p := range b.boundPod {
		if p.DeletionTimestamp != nil {
			continue
		}
		for _, gi := range e.groupsSelecting(p.Namespace, p.Labels, matched) {
			if e.countsOn(e.groups[gi], b) {
				add(gi, 1, 0)
			}
		}
		for _, gi := range e.boundAntiGroups(p) {
			add(gi, 0, 1)
		}
	}
	return out
}

// binDomain is the bin's domain of a zone-like group's key, or -1.
func (e *engine) binDomain(b *bin, g *group) int32 {
	if g.hostname {
		return -1
	}
	v, ok := b.labels[g.key]
	if !ok {
		return -1
	}
	return e.domTab(g.key).id(v)
}

// groupsSelecting lists the groups whose selector matches a pod, memoised on the namespace and the
// values of the label keys selectors read.
func (e *engine) groupsSelecting(ns string, lbls map[string]string, memo map[string][]int32) []int32 {
	var k strings.Builder
	k.WriteString(ns)
	for _, key := range e.relevantList {
		if v, ok := lbls[key]; ok {
			k.WriteString("\x00" + key + "\x01" + v)
		}
	}
	if gs, ok := memo[k.String()]; ok {
		return gs
	}
	var gs []int32
	for gi, g := range e.groups {
		if g.sel.matches(ns, lbls) {
			gs = append(gs, int32(gi))
		}
	}
	memo[k.String()] = gs
	return gs
}

// apply adds (sign 1) or removes (sign -1) a bin's bound pods from the groups' counts. Hostname
// counts stay on the bin, which is dead while taken away; only the groups' totals move.
func (t *simTopology) apply(e *engine, b *bin, sign int32) {
	for _, c := range t.byBin[b.id] {
		g := e.groups[c.g]
		if g.hostname {
			e.gc(g).total += sign * c.match
			continue
		}
		if c.dom < 0 {
			continue
		}
		e.gc(g).grow(len(e.domTab(g.key).names))
		e.gc(g).match[c.dom] += sign * c.match
		e.gc(g).owner[c.dom] += sign * c.owner
	}
}

// eligible is eligibleDomains for a question: domains of the fixed bins still there that count for
// the group, and, when pools may launch, the domains they reach.
func (t *simTopology) eligible(e *engine, g *group, gone []*bin, pools bool) []bool {
	nodes, reach := t.domains(e, g)
	tab := e.domTab(g.key)
	out := make([]bool, len(tab.names))
	count := make([]int32, len(tab.names))
	copy(count, nodes)
	for _, b := range gone {
		if d := e.binDomain(b, g); d >= 0 && e.countsOn(g, b) {
			count[d]--
		}
	}
	for d := range out {
		out[d] = count[d] > 0 || (pools && d < len(reach) && reach[d])
	}
	e.gc(g).grow(len(tab.names))
	return out
}

// domains returns (computing once) the per-domain count of fixed bins counting for the group and
// the domains any pool reaches.
func (t *simTopology) domains(e *engine, g *group) ([]int32, []bool) {
	if t.nodeDoms[g.id] != nil {
		return t.nodeDoms[g.id], t.poolDoms[g.id]
	}
	tab := e.domTab(g.key)
	var counts []int32
	for _, b := range e.bins[:e.fixedBins] {
		if d := e.binDomain(b, g); d >= 0 && e.countsOn(g, b) {
			for len(counts) <= int(d) {
				counts = append(counts, 0)
			}
			counts[d]++
		}
	}
	mark := map[int32]bool{}
	for _, p := range t.pools {
		e.markPoolDomains(g, p, tab, mark)
	}
	reach := make([]bool, len(tab.names))
	for d := range mark {
		reach[d] = true
	}
	if counts == nil {
		counts = []int32{}
	}
	t.nodeDoms[g.id], t.poolDoms[g.id] = counts, reach
	return counts, reach
}
