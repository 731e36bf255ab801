package consolidation

// This file holds the signatures the rule files (cost.go, blocking.go, budgets.go, drift.go,
// expiration.go, collect.go) implement and the methods (decide.go and friends) call. The bodies
// here are placeholders until the rule files land; then this file goes.

import (
	"github.com/napkit/napkit/api"
)

// collect validates in and works out a candidate record for every node that belongs to a NodePool
// of the input (blocker, drift and expiry filled in; methods filter by them). Nodes that cannot be
// candidates at all (no karpenter.sh/nodepool label, unknown pool, no instance type, being deleted,
// not initialized) are returned in skipped with the reason. Both are sorted by node name.
func collect(in *Input) (cands []*candidate, skipped []Blocked, err error) {
	return nil, nil, nil
}

// budgets tracks, per NodePool and reason, how many more nodes the pass may disrupt.
type budgets struct{}

// newBudgets computes each pool's allowed disruptions per reason at in.Now: the minimum over the
// active budgets naming the reason (percentages of the pool's initialized, not-deleting node count
// rounded up), minus the pool's nodes already disrupting, never below 0.
func newBudgets(in *Input, cands []*candidate) (*budgets, error) {
	return &budgets{}, nil
}

// allowed is how many more nodes of pool may be disrupted for reason.
func (b *budgets) allowed(pool string, reason Reason) int { return 0 }

// take consumes n disruptions of pool for reason; it returns false, consuming nothing, when fewer
// than n are left.
func (b *budgets) take(pool string, reason Reason, n int) bool { return false }

// poolPolicy returns the pool's consolidation policy and whether consolidateAfter is Never.
func poolPolicy(pool *api.NodePool) (policy api.ConsolidationPolicy, never bool) {
	return pool.Spec.Disruption.ConsolidationPolicy, false
}
