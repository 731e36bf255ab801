package consolidation

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// unbounded is what allowed answers when no budget limits a reason (and always for ReasonExpired).
// It is MaxInt32, as in Karpenter, so that callers may add to it without overflowing.
const unbounded = math.MaxInt32

// ErrBudget classifies a NodePool disruption budget that cannot be evaluated; such a budget allows
// 0 disruptions (fail closed), as Karpenter's does. It is bad input (errors.Is api.ErrInvalid), and
// each such error is an *api.FieldError naming the NodePool and the budget's field.
var ErrBudget = api.InvalidClass("consolidation: misconfigured disruption budget")

// budgetErr is the *api.FieldError of a budget's field; poolBudgets names the pool and the budget's
// index once it knows them.
func budgetErr(field string, value any, reason string, args ...any) *api.FieldError {
	return api.Invalid(ErrBudget, "", field, value, reason, args...)
}

// budgetReasons are the reasons budgets can limit. Expired is not among them: expiration is
// forceful and Karpenter does not budget it.
var budgetReasons = [...]Reason{ReasonEmpty, ReasonUnderutilized, ReasonDrifted}

// poolBudget is one NodePool's state for the pass.
type poolBudget struct {
	// limit is, per reason, the minimum over the active budgets that apply to it (unbounded when none).
	limit map[Reason]int
	// disrupting counts the pool's nodes already going away plus those the pass has taken. Every
	// budget counts every disrupting node whatever its reason, which is why take charges all reasons.
	disrupting int
	problems   []error
}

// budgets tracks, per NodePool and reason, how many more nodes the pass may disrupt.
type budgets struct {
	pools map[string]*poolBudget
}

// newBudgets computes each pool's allowed disruptions per reason at in.Now: the minimum over the
// active budgets naming the reason (percentages of the pool's initialized, not-deleting node count
// rounded up), minus the pool's nodes already disrupting, never below 0. The candidates are not
// needed: budgets count every node of the pool, candidate or not (cands may be nil).
func newBudgets(in *Input, cands []*candidate) (*budgets, error) {
	switch {
	case in == nil:
		return nil, inputErr("Input", nil, "is nil: the input is required")
	case in.Now.IsZero():
		return nil, inputErr("Now", in.Now, "the decision time is required")
	}
	total, disrupting := countPoolNodes(in.Nodes)
	b := &budgets{pools: make(map[string]*poolBudget, len(in.NodePools))}
	for _, npi := range in.NodePools {
		pool := npi.NodePool
		if pool == nil || b.pools[pool.Name] != nil {
			continue
		}
		pb := &poolBudget{disrupting: disrupting[pool.Name]}
		pb.limit, pb.problems = poolLimits(pool, total[pool.Name], in.Now)
		b.pools[pool.Name] = pb
	}
	return b, nil
}

// countPoolNodes counts, per pool label, the initialized nodes not being deleted (what percentages
// are of) and the initialized nodes already disrupting: being deleted, or with a Ready condition
// other than True. A node without a Ready condition at all is not counted as NotReady: snapshots
// built from labels carry no conditions, and Initialized already says the node came up. A
// Departing node counts as neither: the decision is for after it is gone.
func countPoolNodes(nodes []Node) (total, disrupting map[string]int) {
	total, disrupting = map[string]int{}, map[string]int{}
	for i := range nodes {
		n := &nodes[i]
		if n.Node == nil || !n.Initialized || n.Departing {
			continue
		}
		pool, ok := n.Node.Labels[api.LabelNodePool]
		if !ok {
			continue
		}
		deleting := isDeleting(n)
		if !deleting {
			total[pool]++
		}
		if deleting || nodeNotReady(n.Node) {
			disrupting[pool]++
		}
	}
	return total, disrupting
}

func nodeNotReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status != corev1.ConditionTrue
		}
	}
	return false
}

// poolLimits evaluates the pool's budgets per reason. A nil budget list is the CRD default, one
// budget of 10%; an explicitly empty list (which the CRD keeps) limits nothing.
func poolLimits(pool *api.NodePool, nodes int, now time.Time) (map[Reason]int, []error) {
	limit := make(map[Reason]int, len(budgetReasons))
	for _, r := range budgetReasons {
		limit[r] = unbounded
	}
	list := pool.Spec.Disruption.Budgets
	if list == nil {
		list = []api.Budget{{Nodes: api.DefaultBudgetNodes}}
	}
	var problems []error
	for i := range list {
		allowed, reasons, err := evalBudget(&list[i], nodes, now)
		if err != nil {
			var fe *api.FieldError
			if errors.As(err, &fe) {
				fe.Object = "NodePool " + pool.Name
				fe.Field = fmt.Sprintf("spec.disruption.budgets[%d].%s", i, fe.Field)
				fe.Reason += " (budget allows 0 disruptions)"
			}
			problems = append(problems, err)
		}
		for _, r := range reasons {
			limit[r] = min(limit[r], allowed)
		}
	}
	return limit, problems
}

// evalBudget returns how many nodes one budget allows now and the reasons it applies to (none when
// it is outside its schedule). A misconfigured budget allows 0 for the reasons it names, or for
// every reason when the reasons themselves are wrong, and returns an *api.FieldError of class ErrBudget.
func evalBudget(b *api.Budget, nodes int, now time.Time) (int, []Reason, error) {
	reasons, err := budgetScope(b.Reasons)
	if err != nil {
		return 0, budgetReasons[:], err
	}
	active, err := budgetActive(b, now)
	if err != nil {
		return 0, reasons, err
	}
	if !active {
		return 0, nil, nil
	}
	allowed, err := budgetNodes(b.Nodes, nodes)
	if err != nil {
		return 0, reasons, err
	}
	return allowed, reasons, nil
}

// budgetScope returns the reasons a budget limits: all of them when it names none.
func budgetScope(names []api.DisruptionReason) ([]Reason, error) {
	if len(names) == 0 {
		return budgetReasons[:], nil
	}
	out := make([]Reason, 0, len(names))
	for _, n := range names {
		r := Reason(n)
		if !slices.Contains(budgetReasons[:], r) {
			return nil, budgetErr("reasons", string(n), "want one of %s, %s, %s", ReasonEmpty, ReasonUnderutilized, ReasonDrifted)
		}
		out = append(out, r)
	}
	return out, nil
}

// budgetActive says whether the budget's window is open: always without a schedule; else iff the
// next cron hit (UTC) after now − duration is not after now, which is Karpenter's test.
func budgetActive(b *api.Budget, now time.Time) (bool, error) {
	switch {
	case b.Schedule == nil && b.Duration == nil:
		return true, nil
	case b.Schedule == nil:
		return false, budgetErr("schedule", nil, "must be set with duration")
	case b.Duration == nil:
		return false, budgetErr("duration", nil, "must be set with schedule")
	case b.Duration.Duration <= 0:
		return false, budgetErr("duration", b.Duration.Duration.String(), "must be positive")
	}
	expr := strings.TrimSpace(*b.Schedule)
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return false, budgetErr("schedule", expr, "time zones are not supported; schedules are UTC")
	}
	sched, err := cron.ParseStandard("TZ=UTC " + expr)
	if err != nil {
		return false, budgetErr("schedule", expr, "invalid cron schedule: %w", err)
	}
	now = now.UTC()
	next := sched.Next(now.Add(-b.Duration.Duration))
	// cron returns the zero time for a schedule that never fires (say, February 30th).
	return !next.IsZero() && !next.After(now), nil
}

// budgetNodesPattern is the CRD pattern: "N" or "P%" with P at most 100.
var budgetNodesPattern = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)

// budgetNodes turns "N" or "P%" into a node count; percentages of nodes round up, as PDB
// maxUnavailable does, so 5% of 10 nodes is 1. An empty value is the CRD default, 10%.
func budgetNodes(value string, nodes int) (int, error) {
	if value == "" {
		value = api.DefaultBudgetNodes
	}
	if !budgetNodesPattern.MatchString(value) {
		return 0, budgetErr("nodes", value, "want a node count such as 5 or a percentage such as 10%%")
	}
	if pct, ok := strings.CutSuffix(value, "%"); ok {
		p, _ := strconv.Atoi(pct) // the pattern admits at most "100"
		return (p*nodes + 99) / 100, nil
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n > unbounded {
		return unbounded, nil // only a count too large to parse fails here: it limits nothing
	}
	return int(n), nil
}

// allowed is how many more nodes of pool may be disrupted for reason. ReasonExpired is not
// budgeted (expiration is forceful in Karpenter), so it is always unbounded; a pool the input does
// not hold allows nothing else.
func (b *budgets) allowed(pool string, reason Reason) int {
	if reason == ReasonExpired {
		return unbounded
	}
	pb := b.pools[pool]
	if pb == nil {
		return 0
	}
	limit, ok := pb.limit[reason]
	if !ok {
		return 0
	}
	return max(limit-pb.disrupting, 0)
}

// take consumes n disruptions of pool for reason; it returns false, consuming nothing, when fewer
// than n are left. The nodes count as disrupting for every reason afterwards, because every budget
// counts every disrupting node of the pool. Expired nodes are never refused but still count, so
// graceful methods later in the pass see them going.
func (b *budgets) take(pool string, reason Reason, n int) bool {
	if n < 0 || b.allowed(pool, reason) < n {
		return false
	}
	if pb := b.pools[pool]; pb != nil {
		pb.disrupting += n
	}
	return true
}

// problems returns the pool's misconfigured budgets (each an *api.FieldError of class ErrBudget), in
// budget order, for the caller's Blocked reasons.
func (b *budgets) problems(pool string) []error {
	if pb := b.pools[pool]; pb != nil {
		return pb.problems
	}
	return nil
}
