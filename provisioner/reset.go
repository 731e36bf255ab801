package provisioner

import "slices"

// snapshot is the part of an engine's state that packing changes, as it was right after
// compilation: restoring it lets the baseline reuse the compiled engine instead of compiling the
// input a second time.
type snapshot struct {
	bins    []binState
	groups  []groupState
	pools   [][]int64
	classes [][]*podInfo
}

type binState struct {
	used  resVec
	ports []hostPort
	host  []hostCount
}

type groupState struct {
	match, owner []int32
	total        int32
}

func (e *engine) takeSnapshot() *snapshot {
	s := &snapshot{}
	for _, b := range e.bins[:e.fixedBins] {
		s.bins = append(s.bins, binState{used: b.used.clone(), ports: slices.Clone(b.ports), host: slices.Clone(b.host)})
	}
	for _, g := range e.groups {
		s.groups = append(s.groups, groupState{match: slices.Clone(e.gc(g).match), owner: slices.Clone(e.gc(g).owner), total: e.gc(g).total})
	}
	for _, u := range e.poolUsed {
		s.pools = append(s.pools, slices.Clone(u))
	}
	for _, c := range e.classes {
		s.classes = append(s.classes, slices.Clone(e.queues[c.id].pods))
	}
	return s
}

// reset restores the snapshot and switches the engine's strategy.
func (e *engine) reset(s *snapshot, baseline bool) {
	e.baseline = baseline
	for i, b := range e.bins[:e.fixedBins] {
		st := s.bins[i]
		b.used, b.ports, b.host = st.used.clone(), slices.Clone(st.ports), slices.Clone(st.host)
		b.classes, b.pods, b.domCache, b.touched = nil, nil, nil, false
	}
	e.touched = e.touched[:0]
	e.bins = e.bins[:e.fixedBins]
	for i := range e.groups {
		st := s.groups[i]
		e.counts[i] = groupCounts{match: slices.Clone(st.match), owner: slices.Clone(st.owner), total: st.total}
	}
	for i := range e.poolUsed {
		e.poolUsed[i] = slices.Clone(s.pools[i])
	}
	for i, c := range e.classes {
		q := &e.queues[c.id]
		q.pods = slices.Clone(s.classes[i])
		q.next, q.stuck = 0, false
		clear(q.cursor)
		for _, pi := range q.pods {
			e.placed[pi.idx] = podPlace{}
		}
	}
	e.tree = newFitTree(e.rt.len(), len(e.pods)+len(e.bins)+16)
	for _, b := range e.bins {
		e.tree.push(e.binFree(b))
	}
	e.resetRunCaches()
}

// resetRunCaches drops what one packing run derived from its pending pods.
func (s *state) resetRunCaches() {
	s.seq, s.freeLP, s.forceTarget = map[int]int{}, freeLPCache{}, -1
	s.guide, s.shapeOf, s.quotaBins = map[guideKey]int{}, map[*podClass]*shape{}, map[*shape][]*bin{}
	s.targetOrders, s.duals = map[int][]int{}, map[int]coverResult{}
}
