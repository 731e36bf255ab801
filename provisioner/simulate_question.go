package provisioner

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// question is one Evacuate's changes to the compiled engine, kept to undo them.
type question struct {
	gone  []*bin // the taken nodes, dead for the question
	allow bool
	// classes are the active classes in solve order; order[i] is classes[i]'s pods in queue order.
	classes  []*podClass
	order    [][]*podInfo
	groups   []groupSave // groups a run may change, as they were before it
	eligible []eligibleSave
	pools    [][]int64 // every pool's usage before a run
	realPods int       // Stats.Pods of the reference input: pending plus moved pods
	// goneOwners counts, per group, the taken nodes' pods owning it as required anti-affinity.
	goneOwners map[int32]int32
}

type groupSave struct {
	g      *group
	counts groupCounts
}

type eligibleSave struct {
	g   *group
	old []bool
}

// activate applies a question to the engine: validates it, detaches the taken nodes, closes the
// NotDestinations and makes the question's pods the pending ones.
func (s *Simulator) activate(req EvacuateRequest) (*question, error) {
	nodes, err := s.goneNodes(req.Nodes)
	if err != nil {
		return nil, err
	}
	var moved []*podInfo
	for _, i := range nodes {
		for _, pi := range s.moved[i] {
			if pi.class.err != nil {
				return nil, fmt.Errorf("evacuate %s: %w", s.in.Nodes[i].Node.Name, pi.class.err)
			}
		}
		moved = append(moved, s.moved[i]...)
	}
	q := &question{allow: req.AllowNewNodeClaims, realPods: len(s.in.Pods) + len(moved), goneOwners: map[int32]int32{}}
	s.detach(q, nodes)
	s.closeNotDestinations(req.NotDestinations)
	e := s.eng
	e.pools = nil
	if q.allow {
		e.pools = e.allPools
	}
	e.anyPreferNoSchedule = s.anyPNS(q)
	e.pods = append(slices.Clone(s.pending), moved...)
	s.activateClasses(q, moved)
	s.prepareClasses(q)
	e.classes = q.classes
	clear(e.forced)
	e.countForced(func(c *podClass) int { return len(e.queues[c.id].pods) })
	s.setEligible(q)
	s.saveRunState(q)
	if s.limitsOn {
		clear(e.optionsCache) // launch lists depend on the pools' usage, which the taken nodes change
	}
	e.resetRunCaches()
	e.baseline = false
	return q, nil
}

// goneNodes resolves the names to node indices, once each, in request order.
func (s *Simulator) goneNodes(names []string) ([]int, error) {
	var out []int
	seen := make(map[int]bool, len(names))
	for _, name := range names {
		i, ok := s.index[name]
		if !ok {
			return nil, badValue("EvacuateRequest", "nodes", name, "unknown node")
		}
		if !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	return out, nil
}

// detach takes the nodes away: their bins take nothing, their bound pods stop counting for
// topology, and they stop counting against their pools' limits.
func (s *Simulator) detach(q *question, nodes []int) {
	e := s.eng
	for _, i := range nodes {
		b := s.nodeBin[i]
		q.gone = append(q.gone, b)
		b.dead = true
		e.tree.update(b.id, e.binFree(b))
		s.topo.apply(e, b, -1)
		for _, c := range s.topo.byBin[b.id] {
			q.goneOwners[c.g] += c.owner
		}
		if b.charge != nil {
			e.charge(b.pool, b.charge, -1)
		}
	}
}

// closeNotDestinations closes the named nodes: they keep their pods and counts but take none, as a
// cordoned node does. The closing outlives the question: a caller asks many questions with the
// same NotDestinations (consolidation's list changes only when it commits a command), so only
// a different list reopens the bins of the last one and closes its own. A taken node is closed
// too, so that it stays closed when it comes back.
func (s *Simulator) closeNotDestinations(names []string) {
	if slices.Equal(names, s.closedFor) {
		return
	}
	e := s.eng
	for _, b := range s.closedBins {
		b.closed = false
		e.tree.update(b.id, e.binFree(b))
	}
	s.closedFor, s.closedBins = slices.Clone(names), s.closedBins[:0]
	for _, name := range names {
		i, ok := s.index[name]
		if !ok {
			continue
		}
		b := s.nodeBin[i]
		if b.closed { // cordoned in the snapshot, or named twice
			continue
		}
		b.closed = true
		e.tree.update(b.id, e.binFree(b))
		s.closedBins = append(s.closedBins, b)
	}
}

// anyPNS is the question's engine.anyPreferNoSchedule: pools count only when they may launch.
func (s *Simulator) anyPNS(q *question) bool {
	if q.allow && s.poolPNS {
		return true
	}
	n := s.pnsNodes
	for _, b := range q.gone {
		if s.pnsBin[b.id] {
			n--
		}
	}
	return n > 0
}

// activateClasses picks the classes with pods in the question, in solve order, and gives each its
// pods in queue order (age, then name).
func (s *Simulator) activateClasses(q *question, moved []*podInfo) {
	s.stamp++
	byClass := map[*podClass][]*podInfo{}
	var classes []*podClass
	mark := func(c *podClass) {
		if s.classMk[c.id] != s.stamp {
			s.classMk[c.id] = s.stamp
			classes = append(classes, c)
		}
	}
	for _, pi := range s.pending {
		mark(pi.class)
	}
	for _, pi := range moved {
		mark(pi.class)
		byClass[pi.class] = append(byClass[pi.class], pi)
	}
	slices.SortFunc(classes, func(a, b *podClass) int { return a.id - b.id })
	for _, c := range classes {
		order := append(slices.Clone(s.pendingOf[c]), byClass[c]...)
		if len(byClass[c]) > 0 {
			slices.SortStableFunc(order, queueOrder)
		}
		q.classes = append(q.classes, c)
		q.order = append(q.order, order)
		cq := &s.eng.queues[c.id]
		cq.pods, cq.next, cq.stuck = slices.Clone(order), 0, false
	}
}

// queueOrder is sortClasses' pod order.
func queueOrder(a, b *podInfo) int {
	return cmp.Or(a.pod.CreationTimestamp.Time.Compare(b.pod.CreationTimestamp.Time), strings.Compare(a.key, b.key))
}

// prepareClasses gives each active class the variants and group lists its own Solve input would
// compile: the PreferNoSchedule setting of the question, and only the groups that input interns
// (those of the active classes' terms, and required anti-affinity some remaining bound pod owns).
func (s *Simulator) prepareClasses(q *question) {
	s.stamp++
	for _, c := range q.classes {
		for _, g := range c.termGroups {
			s.groupMk[g] = s.stamp
		}
	}
	inScope := func(g int32) bool {
		return s.groupMk[g] == s.stamp || s.topo.owners[g]-q.goneOwners[g] > 0
	}
	pns := s.eng.anyPreferNoSchedule
	for _, c := range q.classes {
		if c.pre != "" {
			continue
		}
		v := s.eng.view(c)
		v.variants = s.variantsFor(c, pns)
		v.zkeys = nil // they include the inverse groups, which depend on the question
		l := &s.lists[c.id]
		v.hMatch, v.zMatch, v.inverse = scoped(l.hMatch, inScope), scoped(l.zMatch, inScope), scoped(l.inverse, inScope)
		v.free = isFree(c, v.variants, v.inverse)
		cq := &s.eng.queues[c.id]
		if len(cq.cursor) != len(v.variants) {
			cq.cursor = make([]int, len(v.variants))
		}
		clear(cq.cursor)
	}
}

// scoped returns the groups keep accepts, sharing the list when it accepts them all.
func scoped(list []int32, keep func(int32) bool) []int32 {
	for i, g := range list {
		if keep(g) {
			continue
		}
		out := slices.Clone(list[:i])
		for _, h := range list[i+1:] {
			if keep(h) {
				out = append(out, h)
			}
		}
		return out
	}
	return list
}

// setEligible fixes the eligible domains of every zone-like group the active classes check.
func (s *Simulator) setEligible(q *question) {
	e := s.eng
	s.stamp++
	for _, c := range q.classes {
		for _, v := range e.view(c).variants {
			for _, gi := range v.groups {
				g := e.groups[gi]
				if g.hostname || s.groupMk[gi] == s.stamp {
					continue
				}
				s.groupMk[gi] = s.stamp
				q.eligible = append(q.eligible, eligibleSave{g: g, old: e.eligible[g.id]})
				e.eligible[g.id] = s.topo.eligible(e, g, q.gone, q.allow)
			}
		}
	}
}

// saveRunState keeps what a run may change beyond the bins: the counts of every group an active
// class is counted in or owns, and the pools' usage.
func (s *Simulator) saveRunState(q *question) {
	e := s.eng
	s.stamp++
	for _, c := range q.classes {
		v := e.view(c)
		for _, list := range [][]int32{v.hMatch, c.hOwn, v.zMatch, c.zOwn} {
			for _, gi := range list {
				if s.groupMk[gi] == s.stamp {
					continue
				}
				s.groupMk[gi] = s.stamp
				g := e.groups[gi]
				q.groups = append(q.groups, groupSave{g: g, counts: e.gc(g).clone()})
			}
		}
	}
	for _, u := range e.poolUsed {
		q.pools = append(q.pools, slices.Clone(u))
	}
}
