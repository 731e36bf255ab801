package consolidation

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/provisioner"
)

// ErrSimulation wraps a failure of the provisioner's simulation: the snapshot is one the
// provisioner rejects, so no command can be trusted.
var ErrSimulation = errors.New("consolidation: scheduling simulation failed")

// ErrStopped is returned (wrapped) by Decide and Validate when Options.Stop was closed: the pass
// was abandoned, its commands unfinished, and no plan is returned.
var ErrStopped = errors.New("consolidation: stopped")

// pass is one Decide run: the snapshot, the one simulator every "does it fit" question goes to, and
// what the commands found so far took from the cluster.
//
// The commands of a pass must hold together, so each is simulated on the cluster as the earlier
// ones leave it. Rebuilding the simulator after every command would cost a compile of the whole
// cluster per command; instead a removed node stays in the snapshot as a stand-in for wherever its
// pods went (it keeps them, and nothing may land on it), and a node that received pods is frozen
// (nothing more may land on it). Capacity is then exact. Topology is exact for hostname terms;
// zonal terms would see a moved pod in its old zone, so when the cluster has zonal constraints and
// a command moved a pod across zones the simulator is rebuilt (Apply) before the next simulation.
type pass struct {
	in      *Input
	cands   []*candidate
	budgets *budgets
	prices  *priceBook
	totals  map[string]poolTotals
	sim     *provisioner.Simulator
	// inSim are the node names the current simulator holds.
	inSim map[string]bool
	// zones are the nodes' zone labels, for the zone-shift test.
	zones map[string]string
	// base are nodes no moved pod may land on whatever the commands: uninitialized nodes and nodes
	// still inside their own consolidateAfter window.
	base map[string]bool
	// deleting are nodes already going away: their pods are placed in every simulation (they take
	// room) but never decide whether a command is valid.
	deleting []string
	// removed are the nodes of the commands so far; touched received moved pods; both are never
	// candidates again this pass. frozen are touched since the last rebuild.
	removed, touched, frozen map[string]bool
	// claims are the replacement NodeClaims so far: nodes after a rebuild, never destinations.
	claims map[string]bool
	// taken are names nodes, in-flight claims and replacements use; claimSeq numbers replacements.
	taken    map[string]bool
	claimSeq map[string]int
	commands []Command
	// pdbs is what each PDB has left to allow; deferred are commands it held back.
	pdbs     *pdbLedger
	deferred []Deferred
	// zonal is set when some pod has a zonal (not hostname) topology term; stale when a command
	// moved a pod across zones since the last rebuild.
	zonal, stale bool
	bound        *capacityBound
	simulations  int
	rebuilds     int
	// notDest caches notDestinations for notDestKey (commands so far, rebuilds so far): the sets
	// it reads change only when a command is committed or the simulator rebuilt, and a pass asks
	// hundreds of questions in between.
	notDest    []string
	notDestKey [2]int
	// startAllowed is each pool's Underutilized budget before the pass's first command.
	startAllowed map[string]int
	// underutilizedBound is Stats.UnderutilizedBudgetBound.
	underutilizedBound bool
	// floor is Karpenter's command when it saves more than the consolidation commands found
	// (see karpenter.go); Decide then redoes the pass with it.
	floor *draft
	// pending are the snapshot's pending pods ("namespace/name"), for pendingClaims.
	pending map[string]bool
}

// newPass builds the simulator over the whole cluster and the pass's bookkeeping.
func newPass(in *Input, cands []*candidate, b *budgets) (*pass, error) {
	p := &pass{in: in, cands: cands, budgets: b, prices: newPriceBook(in), totals: newPoolTotals(cands),
		inSim: map[string]bool{}, zones: map[string]string{}, base: map[string]bool{},
		removed: map[string]bool{}, touched: map[string]bool{}, frozen: map[string]bool{},
		claims: map[string]bool{}, taken: map[string]bool{}, claimSeq: map[string]int{},
		pdbs: newPDBLedger(cands, in.Options.UnpacedPDBs)}
	for i := range in.Nodes {
		n := &in.Nodes[i]
		if n.Node == nil {
			return nil, fmt.Errorf("%w: nodes[%d] has no Node", ErrSimulation, i)
		}
		name := n.Node.Name
		p.inSim[name], p.taken[name] = true, true
		p.zones[name] = n.Node.Labels[api.LabelZone]
		if !n.Initialized {
			p.base[name] = true
		}
		if n.Deleting || n.Departing {
			p.deleting = append(p.deleting, name)
		}
	}
	for _, f := range in.InFlight {
		p.taken[f.Name] = true
	}
	p.startAllowed = make(map[string]int, len(b.pools))
	for _, c := range cands {
		if !c.consolidatable {
			p.base[c.name] = true
		}
		p.startAllowed[c.pool.Name] = b.allowed(c.pool.Name, ReasonUnderutilized)
	}
	slices.Sort(p.deleting)
	p.zonal = hasZonalTerms(in)
	p.pending = make(map[string]bool, len(in.PendingPods))
	for _, pod := range in.PendingPods {
		p.pending[podKey(pod)] = true
	}
	p.bound = newCapacityBound(in, p.prices)
	p.bound.refresh(p)
	sim, err := provisioner.NewSimulator(simInput(in))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSimulation, err)
	}
	p.sim = sim
	return p, nil
}

// simInput is the provisioner's view of the snapshot.
func simInput(in *Input) provisioner.Input {
	pin := provisioner.Input{Pods: in.PendingPods, InFlight: in.InFlight, NodePools: in.NodePools,
		DaemonSets: in.DaemonSets, PersistentVolumeClaims: in.PersistentVolumeClaims,
		PersistentVolumes: in.PersistentVolumes, Namespaces: in.Namespaces, Options: in.Options.Provisioner}
	pin.Nodes = make([]provisioner.ExistingNode, 0, len(in.Nodes))
	for _, n := range in.Nodes {
		pin.Nodes = append(pin.Nodes, provisioner.ExistingNode{Node: n.Node, Pods: n.Pods, Initialized: n.Initialized})
	}
	return pin
}

// available reports whether a candidate may still join a command: no earlier command of the pass
// removed it or moved pods onto it.
func (p *pass) available(c *candidate) bool {
	return !p.removed[c.name] && !p.touched[c.name]
}

// notDestinations lists, sorted, the nodes of the current simulator no moved pod may land on.
func (p *pass) notDestinations() []string {
	key := [2]int{len(p.commands), p.rebuilds}
	if p.notDest == nil || p.notDestKey != key {
		p.notDest, p.notDestKey = p.listNotDestinations(), key
	}
	return p.notDest
}

func (p *pass) listNotDestinations() []string {
	out := []string{}
	add := func(set map[string]bool) {
		for name := range set {
			if p.inSim[name] {
				out = append(out, name)
			}
		}
	}
	add(p.base)
	add(p.removed)
	add(p.frozen)
	add(p.claims)
	slices.Sort(out)
	return slices.Compact(out)
}

// simulation says how to ask the provisioner: whether new NodeClaims may open, and whether its
// quick (first-fit-decreasing) strategy is enough.
type simulation struct {
	allowNew, quick bool
}

// simulate asks the provisioner where the pods of nodes would go, with the pass's earlier commands
// applied. Deleting nodes are evacuated too: their pods need room as much as the candidates' do.
func (p *pass) simulate(nodes []*candidate, how simulation) (*provisioner.Plan, error) {
	if p.stale {
		if err := p.rebuild(); err != nil {
			return nil, err
		}
	}
	req := provisioner.EvacuateRequest{NotDestinations: p.notDestinations(), AllowNewNodeClaims: how.allowNew, Quick: how.quick}
	for _, c := range nodes {
		req.Nodes = append(req.Nodes, c.name)
	}
	for _, name := range p.deleting {
		if p.inSim[name] {
			req.Nodes = append(req.Nodes, name)
		}
	}
	if err := p.stopped(); err != nil {
		return nil, err
	}
	p.simulations++
	plan, err := p.sim.Evacuate(req)
	if err != nil {
		return nil, fmt.Errorf("%w: removing %s: %w", ErrSimulation, strings.Join(req.Nodes, ","), err)
	}
	return plan, nil
}

// stopped checks Options.Stop without blocking. It is asked before each simulation (milliseconds
// each on thousands of nodes, the unit of a pass's work), so a stop is seen within one of them.
func (p *pass) stopped() error { return checkStop(p.in.Options.Stop, p.simulations) }

func checkStop(stop <-chan struct{}, simulations int) error {
	select {
	case <-stop:
		return fmt.Errorf("%w after %d simulations", ErrStopped, simulations)
	default:
		return nil
	}
}

// rebuild compiles a fresh simulator over the snapshot the commands so far leave: removed nodes
// gone, moved pods bound where they went, replacements present (and never destinations).
func (p *pass) rebuild() error {
	after, err := Apply(*p.in, &Plan{Commands: p.commands})
	if err != nil {
		return fmt.Errorf("%w: applying the pass so far: %w", ErrSimulation, err)
	}
	sim, err := provisioner.NewSimulator(simInput(&after))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSimulation, err)
	}
	p.sim, p.inSim = sim, make(map[string]bool, len(after.Nodes))
	for _, n := range after.Nodes {
		p.inSim[n.Node.Name] = true
		p.zones[n.Node.Name] = n.Node.Labels[api.LabelZone]
	}
	clear(p.frozen)
	p.stale = false
	p.rebuilds++
	p.bound.rebuild(&after, p)
	return nil
}
