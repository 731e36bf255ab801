package consolidation

import (
	"slices"
	"time"

	"github.com/napkit/napkit/api"
)

// Unneeded returns the nodes a pass would remove (delete, or replace with cheaper ones) were
// every NodePool's disruption budget unlimited and every node's consolidateAfter over: Cluster
// Autoscaler's "unneeded" nodes, in Karpenter's terms. Every other rule holds: do-not-disrupt
// pods and nodes, PDBs, consolidateAfter: Never, the consolidation policy, deleting and nominated
// nodes, the replace price rules. The names are sorted.
//
// Why: with the default budget (10 %, one node of ten) a scale-down removes one node per command,
// and kube-scheduler sends the pods each command evicts (and new ones) to the emptiest nodes,
// which are the next candidates: each such pod restarts a candidate's consolidateAfter or makes
// a decided command invalid. A caller marks the unneeded nodes so that kube-scheduler prefers
// others (api.TaintKeyDeletionCandidate), while they wait their turn.
//
// Errors are Decide's.
func Unneeded(in Input) ([]string, error) {
	plan, err := Decide(withoutLimits(in))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, cmd := range plan.Commands {
		out = append(out, cmd.Nodes...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// withoutLimits is in with one budget of 100 % per pool, every node's last pod event long past and
// every deleting node Departing, on copies: in itself is not modified. Departing, because a budget
// counts a deleting node among the disrupting ones and not in its total, so even 100 % would
// leave fewer nodes than the candidates (seen in the scale suite: a delete under way made the
// unneeded set shrink from nine nodes to four for one pass, and two passes wrote ten taints).
func withoutLimits(in Input) Input {
	in.NodePools = slices.Clone(in.NodePools)
	for i, p := range in.NodePools {
		if p.NodePool == nil {
			continue
		}
		pool := *p.NodePool
		pool.Spec.Disruption.Budgets = []api.Budget{{Nodes: "100%"}}
		p.NodePool = &pool
		in.NodePools[i] = p
	}
	in.Nodes = slices.Clone(in.Nodes)
	for i := range in.Nodes {
		// The Unix epoch: every consolidateAfter has run out since.
		in.Nodes[i].LastPodEventAt = time.Unix(0, 0).UTC()
		in.Nodes[i].Departing = in.Nodes[i].Departing || in.Nodes[i].Deleting
	}
	return in
}
