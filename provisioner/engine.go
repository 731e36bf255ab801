package provisioner

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/instancetype"
)

// engine is one packing run: the compiled problem it reads and the packing state it changes.
// Its methods are the phases, in run order chooseFleet, place, improve, finalize, then lowerBound,
// explain and plan; the baseline is a second engine over the same problem with a state of its own.
type engine struct {
	*problem
	*state
}

// problem is the compiled input: the pools and their catalogue (instance type x offering pairs,
// requirement bitsets), the pod classes and their variants, the topology groups and domains, the
// existing nodes and in-flight claims as bins. compile builds it once; Solve's main strategy and
// its baseline, and every question of a Simulator, run over the same problem and never change
// what it compiled (TestRunsLeaveTheProblemAlone). What runs do add to it are memos: the caches
// below, the interned requirement sets and domain values, the pools' lazily built compatibilities.
type problem struct {
	in   *Input
	opts Options

	rt         *resTable
	sets       *reqSets
	allPools   []*pool // weight order
	poolByName map[string]*pool
	poolTypes  map[string][]*instancetype.InstanceType
	daemons    []*daemon
	allPods    []*podInfo
	allClasses []*podClass // solve order
	groups     []*group
	groupIndex map[string]int32
	domTabs    map[string]*domTab
	domPrices  map[string]float64

	relevantKeys map[string]bool
	relevantList []string
	nsLabels     map[string]map[string]string
	pvcs         map[string]*corev1.PersistentVolumeClaim
	pvs          map[string]*corev1.PersistentVolume
	pns          bool          // some pool or node has a PreferNoSchedule taint
	allForced    map[int32]int // see countForced
	// fixed, startCounts and startUsage are the packing state compilation leaves: the existing
	// nodes and in-flight claims as bins (room bound pods take, their host ports and hostname
	// counts), the groups' counts of bound pods, and the pools' usage. Every run starts from copies.
	fixed       []*bin
	fixedBins   int // len(fixed): a run's bins[:fixedBins] are its copies of fixed
	startCounts []groupCounts
	startUsage  [][]int64
	sigs        sigCache
	// lenient (Simulator problems) records a class's compile error in the class instead of failing.
	lenient bool

	// Memo caches of functions of the problem alone, shared by every run over it.
	tolCache     map[tolKey]bool
	nodeCache    map[[2]int]bool
	typeLists    map[int][]int32
	priceOrders  map[int][]int
	launchOrders map[string][]launchCandidate
}

type tolKey struct {
	class, where int
	pns          bool
}

// compile builds the problem of an input. lenient (a Simulator's universe) records a class's
// compile error in the class instead of failing.
func compile(in *Input, opts Options, lenient bool) (*problem, error) {
	e := allocEngine(in, opts, sigCache{})
	e.lenient = lenient
	if err := e.compile(); err != nil {
		return nil, err
	}
	return e.problem, nil
}

// newEngine compiles the input and gives the problem a fresh state.
func newEngine(in *Input, opts Options, baseline bool) (*engine, error) {
	p, err := compile(in, opts, false)
	if err != nil {
		return nil, err
	}
	return p.newEngine(baseline), nil
}

// newEngine is a run over p from the compiled start: the main strategy, or the baseline.
func (p *problem) newEngine(baseline bool) *engine {
	return &engine{problem: p, state: newState(p, baseline)}
}

// allocEngine is an engine with its caches made and nothing compiled; compile fills its problem,
// using the engine's state as scratch for the counts bound pods leave.
func allocEngine(in *Input, opts Options, sigs sigCache) *engine {
	p := &problem{
		in: in, opts: opts, sigs: sigs,
		sets: newReqSets(), poolByName: map[string]*pool{}, poolTypes: map[string][]*instancetype.InstanceType{},
		groupIndex: map[string]int32{}, domTabs: map[string]*domTab{}, domPrices: map[string]float64{},
		tolCache: map[tolKey]bool{}, nodeCache: map[[2]int]bool{}, typeLists: map[int][]int32{},
		priceOrders: map[int][]int{}, launchOrders: map[string][]launchCandidate{},
	}
	return &engine{problem: p, state: newRunState(false)}
}

// compile builds everything a run needs from the input. The packing state compilation leaves
// (bins of the nodes and in-flight claims, bound pods' counts, pools' usage) becomes the problem's
// start, which every run copies.
func (e *engine) compile() error {
	steps := []func() error{e.indexObjects, e.compilePods, e.buildResources, e.buildPools, e.compileDaemons,
		e.finishPools, e.addNodeBins, e.compileClasses}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	e.fixed, e.fixedBins, e.startCounts, e.startUsage = e.bins, len(e.bins), e.counts, e.poolUsed
	e.allPools, e.allPods, e.allClasses, e.pns, e.allForced = e.pools, e.pods, e.classes, e.anyPreferNoSchedule, e.forced
	return nil
}

func (e *engine) indexObjects() error {
	e.nsLabels = map[string]map[string]string{}
	for i, ns := range e.in.Namespaces {
		if ns == nil {
			return inputErr(fmt.Sprintf("Namespace #%d", i), "", "is nil")
		}
		e.nsLabels[ns.Name] = ns.Labels
	}
	e.pvcs = map[string]*corev1.PersistentVolumeClaim{}
	for i, c := range e.in.PersistentVolumeClaims {
		if c == nil {
			return inputErr(fmt.Sprintf("PersistentVolumeClaim #%d", i), "", "is nil")
		}
		e.pvcs[c.Namespace+"/"+c.Name] = c
	}
	e.pvs = map[string]*corev1.PersistentVolume{}
	for i, v := range e.in.PersistentVolumes {
		if v == nil {
			return inputErr(fmt.Sprintf("PersistentVolume #%d", i), "", "is nil")
		}
		e.pvs[v.Name] = v
	}
	return nil
}

// buildResources fixes the resource table: every resource a pending pod asks for.
func (e *engine) buildResources() error {
	seen := map[corev1.ResourceName]bool{}
	var extra []corev1.ResourceName
	for _, c := range e.classes {
		for name := range c.reqMap {
			if name != corev1.ResourceCPU && name != corev1.ResourceMemory && name != corev1.ResourcePods && !seen[name] {
				seen[name] = true
				extra = append(extra, name)
			}
		}
	}
	e.rt = newResTable(extra)
	// Compile's scratch state only takes the fixed bins; every run sizes its own tree for its pods.
	e.tree = newFitTree(e.rt.len(), len(e.in.Nodes)+len(e.in.InFlight)+1)
	return nil
}

func (e *engine) buildPools() error {
	for i, in := range e.in.NodePools {
		p, err := newPool(i, in, e.rt)
		if err != nil {
			return err
		}
		if e.poolByName[p.name] != nil {
			return inputErr("NodePool "+p.name, "metadata.name", "appears twice")
		}
		e.poolByName[p.name] = p
		e.poolTypes[p.name] = in.InstanceTypes
		e.pools = append(e.pools, p)
	}
	orderPools(e.pools)
	e.poolUsed = make([][]int64, len(e.pools))
	for i, p := range e.pools {
		p.idx = i
		e.poolUsed[i] = make([]int64, len(p.limits))
	}
	return nil
}

func (e *engine) finishPools() error {
	e.applyDaemonOverhead()
	for _, p := range e.pools {
		e.anyPreferNoSchedule = e.anyPreferNoSchedule || p.hasPreferNoSchedule()
	}
	for _, n := range e.in.Nodes {
		if n.Node == nil {
			continue
		}
		for _, t := range n.Node.Spec.Taints {
			e.anyPreferNoSchedule = e.anyPreferNoSchedule || t.Effect == corev1.TaintEffectPreferNoSchedule
		}
	}
	return nil
}

// compileClasses compiles every class's constraints, the anti-affinity of bound pods, the
// class-group matching, the variants, and the counts of pods already in the cluster.
func (e *engine) compileClasses() error {
	for _, c := range e.classes {
		if err := e.compileClass(c); err != nil {
			if !e.lenient {
				return err
			}
			// A Simulator compiles bound pods too; their errors only count if they ever move.
			c.err, c.pre, c.preMsg = err, CodeUnsupported, err.Error()
		}
		c.termGroups = c.terms.groups()
	}
	owners := make([][]int32, len(e.bins))
	for i, b := range e.bins {
		for _, p := range b.boundPod {
			if p.DeletionTimestamp == nil {
				owners[i] = append(owners[i], e.boundAntiGroups(p)...)
			}
		}
	}
	e.matchClasses()
	for _, c := range e.classes {
		if c.pre == "" {
			c.variants = e.buildVariants(c)
			c.free = isFree(c, c.variants, c.inverse)
		}
	}
	e.countBound(owners)
	e.countForced(func(c *podClass) int { return len(c.pods) })
	return nil
}

// countBound records the topology of pods already on nodes and in-flight claims.
func (e *engine) countBound(owners [][]int32) {
	for i, b := range e.bins {
		for _, p := range b.boundPod {
			if p.DeletionTimestamp != nil {
				continue
			}
			lbls := p.Labels
			for gi, g := range e.groups {
				if g.sel.matches(p.Namespace, lbls) && e.countsOn(g, b) {
					e.addBoundCount(b, int32(gi), 1, 0)
				}
			}
		}
		for _, gi := range owners[i] {
			e.addBoundCount(b, gi, 0, 1)
		}
	}
}

func (e *engine) addBoundCount(b *bin, gi int32, match, owner int32) {
	g := e.groups[gi]
	if g.hostname {
		b.addHost(gi, match, owner)
		e.gc(g).total += match
		return
	}
	v, ok := b.labels[g.key]
	if !ok {
		return
	}
	d := e.domTab(g.key).id(v)
	e.gc(g).grow(len(e.domTab(g.key).names))
	e.gc(g).match[d] += match
	e.gc(g).owner[d] += owner
}

// countForced finds, per hostname group, how many pending pods must each have a node apart: owners
// of a self-matching required anti-affinity (one per node) or hostname spread (maxSkew per node).
// pending counts a class's pending pods (all of them at compile; a Simulator's question, its own).
func (e *engine) countForced(pending func(*podClass) int) {
	for _, c := range e.classes {
		if c.pre != "" {
			continue
		}
		for _, gi := range c.terms.required {
			g := e.groups[gi]
			if g.hostname && c.matches[gi] && (g.kind == kindAnti || g.kind == kindSpread) {
				e.forced[gi] += pending(c)
			}
		}
	}
	for gi, k := range e.forced {
		if g := e.groups[gi]; g.kind == kindSpread {
			e.forced[gi] = (k + int(g.maxSkew) - 1) / int(g.maxSkew)
		}
	}
}

// tolerates reports (cached) whether class c under variant v tolerates bin b's taints.
func (e *engine) tolerates(c *podClass, v *variant, b *bin) bool {
	where := b.id
	if b.kind == binNew {
		where = -1 - b.pool.idx
	}
	k := tolKey{class: c.id, where: where, pns: v.tolPNS}
	if ok, found := e.tolCache[k]; found {
		return ok
	}
	ok := untolerated(c.tols, e.binTaints(b), v.tolPNS) == nil
	e.tolCache[k] = ok
	return ok
}

// nodeMatches reports (cached) whether a node or in-flight claim meets a requirement set.
func (e *engine) nodeMatches(rs *reqSet, b *bin) bool {
	k := [2]int{rs.id, b.id}
	if ok, found := e.nodeCache[k]; found {
		return ok
	}
	ok := rs.matchesLabels(b.labels)
	e.nodeCache[k] = ok
	return ok
}

// sortedClassesBy returns the classes accepted by keep, in solve order.
func (e *engine) sortedClassesBy(keep func(*podClass) bool) []*podClass {
	return slices.DeleteFunc(slices.Clone(e.classes), func(c *podClass) bool { return !keep(c) })
}
