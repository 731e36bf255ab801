package controller

import (
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/consolidation"
)

// deletesAhead is what the pass after one that started only deletes decides ahead of: their
// nodes, which go within a second (0.03-0.5 s in the scale suite) but hold their pool's budget
// until they do, and the nodes their pods were planned to move to.
//
// Why: the budget is the pace of a scale-down. At ten nodes the default budget (10 %, rounded up)
// allows one node at a time, and each command waited the whole validation delay only after the
// node before it was gone: a 200-pod scale-down removed its empty nodes one per 5 s, the
// validation delay, over and over (docs/benchmarks.md, issue 18). Decided ahead, the next command
// waits its validation delay while the node before it goes; the validation, on the cluster as it
// is then, counts the budgets again and starts nothing the budget does not allow at that moment.
type deletesAhead struct {
	// departing are the deleted nodes: consolidation.Node.Departing while they are still there.
	departing sets.Set[string]
	// destinations are the nodes the deletes' pods move to: about to receive pods, which restarts
	// their consolidateAfter, so they are no candidates of the decision (Nominated) made ahead of it.
	destinations sets.Set[string]
}

// aheadOf returns what the next decision is made ahead of when every command is a delete, and nil
// otherwise: a replace keeps its nodes until its replacement boots, seconds later, and the next
// pass counts them against the budget as usual.
func aheadOf(cmds []consolidation.Command) *deletesAhead {
	if len(cmds) == 0 {
		return nil
	}
	a := &deletesAhead{departing: sets.New[string](), destinations: sets.New[string]()}
	for _, cmd := range cmds {
		if cmd.Kind != consolidation.CommandDelete {
			return nil
		}
		a.departing.Insert(cmd.Nodes...)
		for _, mv := range cmd.Moves {
			a.destinations.Insert(mv.To)
		}
	}
	return a
}

// mark marks in's departing nodes, those still being disrupted (a command that failed rolled its
// nodes back, and they are ordinary nodes again), and the destinations of their pods.
func (a *deletesAhead) mark(in *consolidation.Input, disrupting func(node string) bool) {
	if a == nil {
		return
	}
	for i := range in.Nodes {
		n := &in.Nodes[i]
		switch name := n.Node.Name; {
		case a.departing.Has(name) && disrupting(name):
			n.Deleting, n.Departing = true, true
		case a.destinations.Has(name) && !a.departing.Has(name):
			n.Nominated = true
		}
	}
}

// with is a and b together, or nil when either is nil (b's commands were not all deletes).
func (a *deletesAhead) with(b *deletesAhead) *deletesAhead {
	if a == nil || b == nil {
		return nil
	}
	return &deletesAhead{departing: a.departing.Union(b.departing), destinations: a.destinations.Union(b.destinations)}
}
