package consolidation

import (
	"slices"

	"github.com/napkit/napkit/api"
)

// maxCommandNodes caps the nodes of one consolidation command, as Karpenter's multi-node
// consolidation does (maxParallel): a command is drained as a unit, and a bigger one is a bigger
// blast radius if it goes wrong.
const maxCommandNodes = 100

// minSavings is the least saving a consolidation command must bring: prices are kept to 1e-9 USD,
// so anything smaller is rounding, and a move for nothing is churn.
const minSavings = 1e-9

// consolidate runs multi-node, then single-node consolidation over the candidates in savings-ratio
// order, unless the pass's earlier commands spent budget it needs (budgetStarved).
func (p *pass) consolidate() error {
	if p.in.Options.SkipUnderutilized {
		return nil
	}
	var order []*candidate
	for _, c := range consolidationOrder(p.cands) {
		if p.consolidatable(c) {
			order = append(order, c)
		}
	}
	want := p.availableByPool(order)
	starved := p.budgetStarved(want)
	p.underutilizedBound = starved || p.budgetBound(order, want)
	if starved {
		return nil
	}
	floor, err := p.karpenterDraft(order)
	if err != nil {
		return err
	}
	if err := p.multiNode(order); err != nil {
		return err
	}
	if err := p.mergeToOne(order); err != nil {
		return err
	}
	if err := p.singleNode(order); err != nil {
		return err
	}
	if floor != nil && floor.savings > p.consolidationSavings()+minSavings {
		p.floor = floor
	}
	return nil
}

// budgetStarved reports whether the pass's earlier commands (expiration, emptiness, drift) spent
// budget that consolidation needs: some pool's Underutilized budget now allows fewer of its
// available consolidation candidates than it allowed when the pass began. Consolidation then waits
// for the next pass, when those commands are done and the budget is whole again, as in Karpenter,
// whose loop stops at the first method that finds something. Going ahead would grow commands cut
// short by the budget: a multi-node set that could not take the starved pool's nodes, and that
// moves pods onto them instead, leaves them less to gain later (they are then recipients, inside
// consolidateAfter, or their pool smaller and its percentage budget with it).
func (p *pass) budgetStarved(want map[string]int) bool {
	for pool, n := range want {
		if min(n, p.startAllowed[pool]) > p.budgets.allowed(pool, ReasonUnderutilized) {
			return true
		}
	}
	return false
}

// availableByPool counts the available candidates of order by pool.
func (p *pass) availableByPool(order []*candidate) map[string]int {
	want := map[string]int{}
	for _, c := range order {
		if p.available(c) {
			want[c.pool.Name]++
		}
	}
	return want
}

// budgetBound reports whether a budget kept the method from weighing the candidates (want, by
// pool) in a way a later pass over the same cluster might not: a pool whose Underutilized budget
// allows none of them, or fewer than them under a budget with a schedule (which opens and closes
// with time, not with an event); a pass starved by its earlier commands (budgetStarved) is bound
// too. A pass that finds nothing with a budget of at least one has weighed every candidate alone
// and every set the budget permits, and a later pass finds the same until the cluster or the
// budget changes. (Karpenter's multi-node consolidation counts any candidate past the budget, so
// its cluster is seldom marked consolidated once it has more candidates than its budget allows.)
func (p *pass) budgetBound(order []*candidate, want map[string]int) bool {
	for pool, n := range want {
		allowed := p.budgets.allowed(pool, ReasonUnderutilized)
		if allowed == 0 || (allowed < n && hasScheduledBudget(pool, order)) {
			return true
		}
	}
	return false
}

// hasScheduledBudget reports whether one of the named pool's budgets (read from its first
// candidate in order) is active only on a schedule.
func hasScheduledBudget(pool string, order []*candidate) bool {
	i := slices.IndexFunc(order, func(c *candidate) bool { return c.pool.Name == pool })
	return i >= 0 && slices.ContainsFunc(order[i].pool.Spec.Disruption.Budgets, func(b api.Budget) bool { return b.Schedule != nil })
}

// consolidatable is the consolidation methods' filter: a pool policy that allows it, past
// consolidateAfter, not empty (emptiness owns those), not blocked, priced and labelled.
func (p *pass) consolidatable(c *candidate) bool {
	policy, never := poolPolicy(c.pool)
	if never || policy == api.ConsolidationPolicyWhenEmpty {
		return false
	}
	return c.consolidatable && !c.empty && c.blocker == "" && c.instanceType != nil && c.price > 0 &&
		c.zone != "" && c.capacityType != ""
}

// usable reports whether c may join a consolidation command now: still available, its pool's
// Underutilized budget not spent (counting pending nodes of the command being grown).
func (p *pass) usable(c *candidate, pending map[string]int) bool {
	return p.available(c) && p.budgets.allowed(c.pool.Name, ReasonUnderutilized) > pending[c.pool.Name]
}

// commandsLeft reports whether Options.MaxCommands allows another consolidation command.
func (p *pass) commandsLeft() bool {
	if p.in.Options.MaxCommands <= 0 {
		return true
	}
	n := 0
	for _, c := range p.commands {
		if c.Reason == ReasonUnderutilized {
			n++
		}
	}
	return n < p.in.Options.MaxCommands
}

// tryRemove simulates removing nodes with new NodeClaims allowed and drafts the command the
// result supports: a delete when the rest of the cluster takes every pod, a replace when the
// replacement rules leave a cheaper launch, nothing otherwise. why says what failed.
//
// The first simulation is the provisioner's quick one, first-fit decreasing as Karpenter's own
// scheduling simulation is, so every command Karpenter's simulation would allow is found at its
// cost. Only when that finds nothing and the options allow more than one replacement does the
// full strategy get asked: splits and M → N moves are where its packing makes the difference.
func (p *pass) tryRemove(nodes []*candidate, detail string) (*draft, string, error) {
	d, why, err := p.draftRemove(nodes, detail, true)
	if err != nil || d != nil || !(p.in.Options.AllowSplit || p.in.Options.AllowManyToMany) {
		return d, why, err
	}
	return p.draftRemove(nodes, detail, false)
}

// draftRemove is one simulation of removing nodes, quick or full, read as a command.
func (p *pass) draftRemove(nodes []*candidate, detail string, quick bool) (*draft, string, error) {
	plan, err := p.simulate(nodes, simulation{allowNew: true, quick: quick})
	if err != nil {
		return nil, "", err
	}
	o := evaluate(nodes, plan)
	if !o.valid() {
		return nil, "pods would not schedule", nil
	}
	if p.pendingNeedClaims(plan, o) {
		return nil, "pending pods need new NodeClaims", nil
	}
	if !p.claimCountAllowed(len(nodes), len(o.claims)) {
		return nil, "too many replacements", nil
	}
	r := newReplaceRule(nodes, p.in.Options)
	claims, worst, why := p.prices.priceAll(o.claims, r)
	if why != "" {
		return nil, why, nil
	}
	d := &draft{kind: CommandDelete, reason: ReasonUnderutilized, detail: detail, nodes: nodes, out: o,
		claims: claims, savings: r.below - worst}
	if len(claims) > 0 {
		d.kind = CommandReplace
	}
	if d.savings < minSavings {
		return nil, "no savings", nil
	}
	if !p.balancedApproves(nodes, d.savings) {
		return nil, "Balanced score below 1/k", nil
	}
	return d, "", nil
}

// claimCountAllowed is the shape rule: M → 0 or M → 1 always; 1 → 2 with AllowSplit; M → N with
// AllowManyToMany.
func (p *pass) claimCountAllowed(removed, claims int) bool {
	switch {
	case claims <= 1:
		return true
	case p.in.Options.AllowManyToMany:
		return true
	default:
		return p.in.Options.AllowSplit && removed == 1 && claims == 2
	}
}
