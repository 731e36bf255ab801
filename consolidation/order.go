package consolidation

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/napkit/napkit/api"
)

// consolidationOrder sorts candidates by Karpenter's savings ratio, price / disruption cost,
// highest first, ties by name: the nodes that save most per unit of disruption go first.
func consolidationOrder(cands []*candidate) []*candidate {
	out := slices.Clone(cands)
	slices.SortStableFunc(out, func(a, b *candidate) int {
		return cmp.Or(cmp.Compare(ratio(b), ratio(a)), strings.Compare(a.name, b.name))
	})
	return out
}

func ratio(c *candidate) float64 {
	if c.disruptionCost <= 0 {
		return c.price
	}
	return c.price / c.disruptionCost
}

// driftOrder puts empty drifted nodes first, then the longest drifted, ties by name.
func driftOrder(cands []*candidate) []*candidate {
	out := slices.Clone(cands)
	slices.SortStableFunc(out, func(a, b *candidate) int {
		if a.empty != b.empty {
			if a.empty {
				return -1
			}
			return 1
		}
		return cmp.Or(driftedSince(a).Compare(driftedSince(b)), strings.Compare(a.name, b.name))
	})
	return out
}

// driftedSince is when the NodeClaim's Drifted condition turned true; without one, the node's
// initialization (a node drifts no earlier than it came up), so older nodes still go first.
func driftedSince(c *candidate) time.Time {
	if nc := c.node.NodeClaim; nc != nil {
		if cond := meta.FindStatusCondition(nc.Status.Conditions, api.ConditionDrifted); cond != nil && cond.Status == "True" {
			return cond.LastTransitionTime.Time
		}
	}
	if !c.node.InitializedAt.IsZero() {
		return c.node.InitializedAt
	}
	return c.node.Node.CreationTimestamp.Time
}

// reasonRank is the order commands are listed in: forceful first, then Karpenter's method order.
var reasonRank = map[Reason]int{ReasonExpired: 0, ReasonEmpty: 1, ReasonDrifted: 2, ReasonUnderutilized: 3}

// sortCommands orders commands by reason, then first node name.
func sortCommands(cmds []Command) {
	slices.SortStableFunc(cmds, func(a, b Command) int {
		return cmp.Or(cmp.Compare(reasonRank[a.Reason], reasonRank[b.Reason]), strings.Compare(firstNode(a), firstNode(b)))
	})
}

func firstNode(c Command) string {
	if len(c.Nodes) == 0 {
		return ""
	}
	return c.Nodes[0]
}
