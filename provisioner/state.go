package provisioner

import (
	"maps"
	"slices"
)

// state is what one packing run changes and derives from its pods: its scope, the bins (copies of
// the fixed ones, then its new NodeClaims) and the fit tree over them, the topology counts, the
// pools' usage, the classes as it sees them and their queues, where it placed each pod, and the
// run's caches.
type state struct {
	baseline bool // first-fit-decreasing with growable NodeClaims, the reference plan

	// The run's scope: the pools it may open NodeClaims in, the pods and classes it places, whether
	// a PreferNoSchedule taint is in play and the pods that need a node apart (countForced). A
	// Solve run takes the whole problem; a Simulator question narrows them to its own.
	pools               []*pool
	pods                []*podInfo
	classes             []*podClass
	anyPreferNoSchedule bool
	forced              map[int32]int

	bins []*bin
	tree *fitTree
	// poolUsed[pool idx] is what nodes, in-flight claims and planned claims take from its limits.
	poolUsed [][]int64

	scratch     placement
	duals       map[int]coverResult
	forceTarget int
	lastGroup   int32 // the group behind the last topology failure of check
	// counts[group id] are the group's topology counts.
	counts []groupCounts
	// eligible[group id] are the domains a spread or affinity group's owners could use (see
	// eligibleDomains); nil until computed.
	eligible [][]bool
	// views[class id] are the classes as the run sees them.
	views []classView
	// queues[class id] are the class's pods in queue order, the placed ones first.
	queues []classQueue
	// placed[pod idx] is where the run placed the pod; placeClock counts placements.
	placed       []podPlace
	placeClock   int64
	seq          map[int]int
	targetOrders map[int][]int
	guide        map[guideKey]int
	shapeOf      map[*podClass]*shape
	quotaBins    map[*shape][]*bin
	freeLP       freeLPCache
	// touched lists the existing nodes and in-flight claims a run changed (see touch).
	touched []*bin
	// optionsCache holds the run's launch lists; they depend on its pools' usage, so runs never
	// share them (a Simulator keeps its own across questions while no pool has limits).
	optionsCache map[string]launchOptionsEntry
	fixedNames   map[string][]*bin // lazily built by nameClaims
}

// newState is a fresh run over p: the fixed bins, group counts and pool usage as compiled (copies,
// so that runs over one problem never see each other), every class's pods queued, nothing placed.
func newState(p *problem, baseline bool) *state {
	s := newRunState(baseline)
	s.pools, s.pods, s.classes, s.anyPreferNoSchedule = p.allPools, p.allPods, p.allClasses, p.pns
	s.forced = maps.Clone(p.allForced)
	s.bins = make([]*bin, len(p.fixed))
	for i, b := range p.fixed {
		s.bins[i] = b.startCopy()
	}
	s.counts = make([]groupCounts, len(p.startCounts))
	for i := range p.startCounts {
		s.counts[i] = p.startCounts[i].clone()
	}
	s.poolUsed = make([][]int64, len(p.startUsage))
	for i, u := range p.startUsage {
		s.poolUsed[i] = slices.Clone(u)
	}
	s.initQueues(p.allClasses)
	s.eligible = make([][]bool, len(p.groups))
	s.views = make([]classView, len(p.allClasses))
	for _, c := range p.allClasses {
		s.views[c.id] = classView{variants: c.variants, hMatch: c.hMatch, zMatch: c.zMatch, inverse: c.inverse, free: c.free}
	}
	s.placed = make([]podPlace, len(p.allPods))
	s.tree = newFitTree(p.rt.len(), len(p.allPods)+len(s.bins)+16)
	for _, b := range s.bins {
		s.tree.push(p.binFree(b))
	}
	return s
}

// newRunState is an empty state with its run caches made (compile's scratch state).
func newRunState(baseline bool) *state {
	s := &state{baseline: baseline, optionsCache: map[string]launchOptionsEntry{}, forced: map[int32]int{}}
	s.resetRunCaches()
	return s
}

// startCopy is a fixed bin as a run starts with it: its own room, ports and host counts, none of
// the run's pods.
func (b *bin) startCopy() *bin {
	c := *b
	c.used, c.ports, c.host = b.used.clone(), slices.Clone(b.ports), slices.Clone(b.host)
	c.classes, c.pods, c.domCache, c.touched = nil, nil, nil, false
	return &c
}

// initQueues gives every class its queue: its pods in queue order, none placed.
func (s *state) initQueues(classes []*podClass) {
	s.queues = make([]classQueue, len(classes))
	for _, c := range classes {
		s.queues[c.id] = classQueue{pods: slices.Clone(c.pods), cursor: make([]int, len(c.variants))}
	}
}

// classView is a class as a run sees it: its relaxation variants, the groups it is counted in
// (hMatch hostname, zMatch zone-like) and checks (inverse), whether it is free, and the keys
// zoneKeys derives per variant. A Solve run sees the class as compiled; a Simulator question sees
// the variants of its PreferNoSchedule setting and only the groups its own input would intern.
type classView struct {
	variants                []*variant
	hMatch, zMatch, inverse []int32
	free                    bool
	zkeys                   [][]string
}

// view is c as the run sees it.
func (s *state) view(c *podClass) *classView { return &s.views[c.id] }

// remaining counts the pods of c the run has not placed.
func (s *state) remaining(c *podClass) int {
	q := &s.queues[c.id]
	return len(q.pods) - q.next
}

// binOf is the bin the run placed pi on, nil while pending.
func (s *state) binOf(pi *podInfo) *bin { return s.placed[pi.idx].bin }

// touch records the first change a run makes to an existing node or in-flight claim, so that a
// Simulator can undo the run by restoring only those bins.
func (e *engine) touch(b *bin) {
	if b.kind != binNew && !b.touched {
		b.touched = true
		e.touched = append(e.touched, b)
	}
}

// resetRunCaches drops what one packing run derived from its pending pods.
func (s *state) resetRunCaches() {
	s.seq, s.freeLP, s.forceTarget = map[int]int{}, freeLPCache{}, -1
	s.guide, s.shapeOf, s.quotaBins = map[guideKey]int{}, map[*podClass]*shape{}, map[*shape][]*bin{}
	s.targetOrders, s.duals = map[int][]int{}, map[int]coverResult{}
}
