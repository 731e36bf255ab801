package consolidation

import (
	"maps"
	"slices"

	"github.com/napkit/napkit/provisioner"
)

// outcome is what one simulation says about removing a set of nodes.
type outcome struct {
	// moves are where the candidates' pods went, in the order the simulation placed them, then the
	// pods it left unplaced (To ""), sorted.
	moves []Move
	// claims are the new NodeClaims that took at least one moved pod (claims holding only pods of
	// deleting nodes are provisioning's business; claims holding pending pods alone block the
	// command, pendingNeedClaims).
	claims []provisioner.NodeClaim
	// unplaced counts moved pods the simulation found no place for.
	unplaced int
	// uninitialized is set when a moved pod landed on a NodeClaim still launching: Karpenter
	// refuses such a command, since the pod would wait on a node that may never come up.
	uninitialized bool
	// source maps each moved pod to the node it leaves.
	source map[string]string
}

// valid reports a command the cluster can carry out: every moved pod has an initialized home.
func (o *outcome) valid() bool { return o.unplaced == 0 && !o.uninitialized }

// evaluate reads a simulation of removing nodes.
func evaluate(nodes []*candidate, plan *provisioner.Plan) *outcome {
	o := &outcome{source: map[string]string{}}
	for _, c := range nodes {
		for _, pod := range c.pods {
			o.source[podKey(pod)] = c.name
		}
	}
	dest := make(map[string]string, len(o.source))
	mark := func(to string, pods []string) bool {
		hit := false
		for _, pod := range pods {
			if _, moved := o.source[pod]; moved {
				dest[pod], hit = to, true
			}
		}
		return hit
	}
	for _, np := range plan.ExistingNodes {
		mark(np.Name, np.Pods)
	}
	for _, np := range plan.InFlightClaims {
		if mark(np.Name, np.Pods) {
			o.uninitialized = true
		}
	}
	for _, nc := range plan.NodeClaims {
		if mark(nc.Name, nc.Pods) {
			o.claims = append(o.claims, nc)
		}
	}
	o.moves = make([]Move, 0, len(o.source))
	for _, pod := range plan.PlacementOrder {
		if to, ok := dest[pod]; ok {
			o.moves = append(o.moves, Move{Pod: pod, To: to})
			delete(dest, pod)
		}
	}
	// A plan without an order (not a Simulator's) still yields every move, sorted.
	for _, pod := range slices.Sorted(maps.Keys(dest)) {
		o.moves = append(o.moves, Move{Pod: pod, To: dest[pod]})
	}
	if o.unplaced = len(o.source) - len(o.moves); o.unplaced > 0 {
		placed := make(map[string]bool, len(o.moves))
		for _, m := range o.moves {
			placed[m.Pod] = true
		}
		var unplaced []string
		for pod := range o.source {
			if !placed[pod] {
				unplaced = append(unplaced, pod)
			}
		}
		slices.Sort(unplaced)
		for _, pod := range unplaced {
			o.moves = append(o.moves, Move{Pod: pod})
		}
	}
	return o
}
