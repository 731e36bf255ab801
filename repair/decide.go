package repair

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
)

// DefaultMaxUnhealthy is Karpenter's guard: no repair in a NodePool (or, for nodes of no pool,
// the cluster) where more than 20 % of the nodes are unhealthy.
var DefaultMaxUnhealthy = intstr.FromString("20%")

// Node is one node napkit manages.
type Node struct {
	Node *corev1.Node
	// NodePool is the node's pool; nil for a node of no pool the input holds (only the
	// cluster-wide guard applies to it, and no budget).
	NodePool *api.NodePool
	// Deleting marks a node already going; it is never repaired but counts against budgets.
	Deleting bool
}

// Input is what one Decide reads.
type Input struct {
	Nodes []Node
	// Policies are the repair policies; nil means AzurePolicies.
	Policies []Policy
	// MaxUnhealthy is the guard; nil means DefaultMaxUnhealthy. Percentages round up.
	MaxUnhealthy *intstr.IntOrString
	// Now is the decision time.
	Now time.Time
}

// Repair is one unhealthy node with why: the condition and since when.
type Repair struct {
	Node     string `json:"node"`
	NodePool string `json:"nodePool,omitempty"`
	// Condition and Status are the node condition that matched a policy.
	Condition corev1.NodeConditionType `json:"condition"`
	Status    corev1.ConditionStatus   `json:"status"`
	Since     time.Time                `json:"since"`
	// Toleration is the policy's; the node is due at Since + Toleration.
	Toleration time.Duration `json:"toleration"`
	// Why is a sentence for events and logs.
	Why string `json:"why"`
}

// Output is the decision. Every slice is sorted by node name.
type Output struct {
	// Repairs are the nodes to replace now.
	Repairs []Repair `json:"repairs"`
	// Waiting are unhealthy nodes still within their toleration; Decide again at their due time.
	Waiting []Repair `json:"waiting"`
	// Blocked are due nodes a guard or budget holds back; Why says which.
	Blocked []Repair `json:"blocked"`
}

// Decide returns which nodes to repair now.
func Decide(in Input) (Output, error) {
	policies := in.Policies
	if policies == nil {
		policies = AzurePolicies()
	}
	guard := DefaultMaxUnhealthy
	if in.MaxUnhealthy != nil {
		guard = *in.MaxUnhealthy
	}
	if _, err := scaled(guard, 0); err != nil {
		return Output{}, err
	}
	var out Output
	var due []Repair
	t := newTally(in, guard)
	for _, n := range sortedNodes(in.Nodes) {
		pool := poolName(n)
		if n.Deleting {
			t.deleting[pool]++
			continue
		}
		t.total[pool]++
		t.clusterTotal++
		cond, policy, ok := match(n.Node, policies)
		if !ok {
			continue
		}
		t.unhealthy[pool]++
		t.clusterUnhealthy++
		r := Repair{Node: n.Node.Name, NodePool: pool, Condition: cond.Type, Status: cond.Status,
			Since: cond.LastTransitionTime.Time, Toleration: policy.Toleration}
		if in.Now.Before(r.Since.Add(r.Toleration)) {
			r.Why = fmt.Sprintf("%s=%s for %s, repaired after %s", r.Condition, r.Status, in.Now.Sub(r.Since).Round(time.Second), r.Toleration)
			out.Waiting = append(out.Waiting, r)
			continue
		}
		r.Why = fmt.Sprintf("%s=%s for %s, longer than the %s toleration", r.Condition, r.Status, in.Now.Sub(r.Since).Round(time.Second), r.Toleration)
		due = append(due, r)
	}
	for _, r := range due {
		why, err := t.blockedBy(r)
		if err != nil {
			return Output{}, err
		}
		if why != "" {
			r.Why += "; not repaired: " + why
			out.Blocked = append(out.Blocked, r)
			continue
		}
		out.Repairs = append(out.Repairs, r)
	}
	return out, nil
}

// tally counts the nodes per pool (key "" for nodes of no pool) and the budget left, for the guards.
type tally struct {
	in                             Input
	guard                          intstr.IntOrString
	total, unhealthy, deleting     map[string]int
	allowed                        map[string]int
	clusterTotal, clusterUnhealthy int
}

func newTally(in Input, guard intstr.IntOrString) *tally {
	return &tally{in: in, guard: guard, total: map[string]int{}, unhealthy: map[string]int{}, deleting: map[string]int{},
		allowed: map[string]int{}}
}

// blockedBy says which guard or budget holds r back, or "". A repair nothing holds is charged to
// its pool's remaining budget.
func (t *tally) blockedBy(r Repair) (string, error) {
	clusterLimit, err := scaled(t.guard, t.clusterTotal)
	if err != nil {
		return "", err
	}
	if t.clusterUnhealthy > clusterLimit {
		return fmt.Sprintf("%d of the cluster's %d nodes are unhealthy, more than %s", t.clusterUnhealthy, t.clusterTotal, t.guard.String()), nil
	}
	pool := poolOf(t.in.Nodes, r.NodePool)
	if pool == nil {
		return "", nil
	}
	limit, err := scaled(t.guard, t.total[r.NodePool])
	if err != nil {
		return "", err
	}
	if t.unhealthy[r.NodePool] > limit {
		return fmt.Sprintf("%d of NodePool %s's %d nodes are unhealthy, more than %s",
			t.unhealthy[r.NodePool], r.NodePool, t.total[r.NodePool], t.guard.String()), nil
	}
	left, ok := t.allowed[r.NodePool]
	if !ok {
		left, err = consolidation.DisruptionsAllowed(pool, t.total[r.NodePool], t.deleting[r.NodePool], t.in.Now)
		if err != nil {
			return "", fmt.Errorf("NodePool %s: %w", r.NodePool, err)
		}
	}
	if left < 1 {
		t.allowed[r.NodePool] = left
		return fmt.Sprintf("NodePool %s's disruption budgets allow no more disruptions now", r.NodePool), nil
	}
	t.allowed[r.NodePool] = left - 1
	return "", nil
}

func scaled(guard intstr.IntOrString, n int) (int, error) {
	v, err := intstr.GetScaledValueFromIntOrPercent(&guard, n, true)
	if err != nil {
		return 0, fmt.Errorf("repair MaxUnhealthy %q: %w", guard.String(), err)
	}
	return v, nil
}

func poolName(n Node) string {
	if n.NodePool == nil {
		return ""
	}
	return n.NodePool.Name
}

func poolOf(nodes []Node, name string) *api.NodePool {
	if name == "" {
		return nil
	}
	for _, n := range nodes {
		if n.NodePool != nil && n.NodePool.Name == name {
			return n.NodePool
		}
	}
	return nil
}

func sortedNodes(nodes []Node) []Node {
	out := slices.Clone(nodes)
	slices.SortFunc(out, func(a, b Node) int { return cmp.Compare(a.Node.Name, b.Node.Name) })
	return out
}
