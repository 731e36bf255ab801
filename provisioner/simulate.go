package provisioner

import (
	"fmt"
	"time"
)

// Simulator answers many "what if these nodes went away" questions about one cluster snapshot, the
// question consolidation asks for every candidate. It is built once from an Input whose Nodes are the
// cluster (Input.Pods are pods already pending) and is not safe for concurrent use.
//
// NewSimulator compiles the whole snapshot once, every evacuable bound pod included (as a pending
// pod of its class, inactive until its node is taken away). Each Evacuate then detaches the taken
// nodes (their bins, their pods' topology counts and limit charges), activates only the classes and
// pods of the question, runs the engine exactly as Solve does (main strategy, then the
// first-fit-decreasing baseline, keeping the better plan) and undoes what the run changed: the bins
// it touched, the groups and pools its pods count in. Its cost follows the question, not the cluster.
type Simulator struct {
	in   Input
	opts Options
	// index maps a node name to its position in in.Nodes.
	index map[string]int
	// eng is the one run the Simulator keeps over its problem, undone after each question (its
	// fixed bins go back to the problem's compiled ones, see undoRun).
	eng *engine
	// nodeBin is in.Nodes[i]'s bin; moved[i] its evacuable pods, compiled as pending pods.
	nodeBin []*bin
	moved   [][]*podInfo
	// pending are Input.Pods and buffer replicas, always pending; pendingOf groups them by class.
	pending   []*podInfo
	pendingOf map[*podClass][]*podInfo
	topo      *simTopology
	// variants[class id][anyPreferNoSchedule] are the class's relaxation variants: whether any
	// PreferNoSchedule taint is in play depends on the nodes taken and on AllowNewNodeClaims.
	variants [][2][]*variant
	lists    []classLists // each class's group lists over the whole snapshot
	pnsBin   []bool       // fixed bin id → its node has a PreferNoSchedule taint
	pnsNodes int
	poolPNS  bool
	stamp    int   // generation counter for the mark slices below
	classMk  []int // class id → stamp when active in the current question
	groupMk  []int // group id → stamp when seen in the current pass
	limitsOn bool  // some pool has limits: cached launch lists depend on the pools' usage
	// closedBins are the bins closed for closedFor, the last question's NotDestinations; they stay
	// closed until a question names other ones (see closeNotDestinations).
	closedFor  []string
	closedBins []*bin
}

// EvacuateRequest names the nodes to take away and what the simulation may use instead.
type EvacuateRequest struct {
	// Nodes are removed; their pods (other than DaemonSet-owned and mirror pods, and terminal pods)
	// become pending and are placed with the pods already pending.
	Nodes []string
	// NotDestinations are nodes that stay in the cluster (their pods still count for topology) but
	// must not receive moved pods: nodes inside their own consolidateAfter window, say. Names that
	// are not nodes of the snapshot are ignored.
	NotDestinations []string
	// AllowNewNodeClaims lets the simulation open new NodeClaims from Input.NodePools; without it a
	// pod that fits nowhere else is unschedulable.
	AllowNewNodeClaims bool
	// Quick runs only the first-fit-decreasing baseline (Karpenter's own scheduling simulation)
	// instead of the main strategy and the baseline. Its plan is valid but may open costlier or
	// more NodeClaims, and it reports no lower bound (Cost.LowerBoundPerHour 0). It costs a
	// fraction of a full run when many pods need new NodeClaims, which suits screening many
	// questions and asking in full only about the promising ones.
	Quick bool
}

// NewSimulator compiles the snapshot. The Input is kept by reference: do not modify it afterwards.
// It returns the errors Solve would return for the Input (wrapping ErrInvalidInput); an invalid
// spec of a bound pod is reported by the Evacuate that moves the pod.
func NewSimulator(in Input) (*Simulator, error) {
	s := &Simulator{in: in, opts: in.Options.withDefaults(), index: make(map[string]int, len(in.Nodes))}
	for i, n := range in.Nodes {
		if n.Node == nil {
			return nil, inputErr(fmt.Sprintf("Node #%d", i), "node", "is nil")
		}
		if _, dup := s.index[n.Node.Name]; dup {
			return nil, inputErr("Node "+n.Node.Name, "metadata.name", "appears twice")
		}
		s.index[n.Node.Name] = i
	}
	if err := validateOptions(s.opts); err != nil {
		return nil, err
	}
	if err := validateBuffers(in.CapacityBuffers); err != nil {
		return nil, err
	}
	if err := s.compile(); err != nil {
		return nil, err
	}
	return s, nil
}

// Evacuate simulates removing req.Nodes and returns the provisioner's plan for their pods: where
// each lands (ExistingNodes, InFlightClaims), which NodeClaims would be created and which pods
// would stay unschedulable. The plan is the one Solve would return for the same question (see
// evacuateReference), and the simulator's snapshot is unchanged afterwards.
func (s *Simulator) Evacuate(req EvacuateRequest) (*Plan, error) {
	start := time.Now()
	q, err := s.activate(req)
	if err != nil {
		return nil, err
	}
	defer s.deactivate(q)
	var plan *Plan
	if req.Quick {
		plan = s.runBaseline(q)
	} else {
		plan = s.run(q, start)
	}
	plan.Stats.SolveMillis = time.Since(start).Milliseconds()
	return plan, nil
}

// run is Solve's sequence on the activated engine: the main strategy, then the baseline on the
// question's state with the main run undone (Solve gives its baseline a fresh state; here a fresh
// state would copy the whole cluster per question, undoing costs what the run changed), keeping
// the plan that places more pods, then costs less.
func (s *Simulator) run(q *question, start time.Time) *Plan {
	e := s.eng
	chs := e.run()
	plan := s.render(q, chs)
	if s.opts.DisableBaseline {
		return plan
	}
	placed, price := e.placedCount(), totalPrice(chs)
	s.undoRun(q)
	e.baseline = true
	baseCh := e.run()
	if better(e.placedCount(), totalPrice(baseCh), placed, price) {
		plan = s.render(q, baseCh)
	}
	return plan
}

// runBaseline is the baseline alone on the activated engine. Its plan carries no lower bound
// (Cost.LowerBoundPerHour is 0, trivially true): computing one costs as much as the packing, and
// a quick question is asked for its placements.
func (s *Simulator) runBaseline(q *question) *Plan {
	e := s.eng
	e.baseline = true
	e.pack()
	plan := e.plan(e.finalize())
	plan.Stats.Pods = q.realPods
	plan.PlacementOrder = e.placementOrder()
	return plan
}

func (s *Simulator) render(q *question, chs []choice) *Plan {
	plan := s.eng.plan(chs)
	plan.Cost.LowerBoundPerHour = floorPrice(s.eng.lowerBound())
	plan.Stats.Pods = q.realPods
	plan.PlacementOrder = s.eng.placementOrder()
	return plan
}
