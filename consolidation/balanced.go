package consolidation

import (
	"github.com/napkit/napkit/api"
)

// balancedK is Karpenter's BalancedK: a Balanced pool approves a move whose score is at least 1/k.
const balancedK = 2

// poolTotals are a pool's summed node price and disruption cost, the denominators of the
// Balanced score.
type poolTotals struct {
	price, disruption float64
}

func newPoolTotals(cands []*candidate) map[string]poolTotals {
	out := map[string]poolTotals{}
	for _, c := range cands {
		t := out[c.pool.Name]
		t.price += c.price
		t.disruption += c.disruptionCost
		out[c.pool.Name] = t
	}
	return out
}

// balancedScore is (savings / pool price) ÷ (disruption / pool disruption): the share of the pool's
// cost a move saves per share of the pool's disruption it causes.
func balancedScore(savings, disruption float64, t poolTotals) float64 {
	if t.price <= 0 || disruption <= 0 || t.disruption <= 0 {
		return 0
	}
	return (savings / t.price) / (disruption / t.disruption)
}

// balancedApproves reports whether a command removing nodes and saving savings passes the Balanced
// rule. Only the nodes of Balanced pools are weighed, with their price's share of the savings; the
// denominators are those pools' totals. A command touching no Balanced pool is approved
// (WhenEmptyOrUnderutilized is k = ∞).
func (p *pass) balancedApproves(nodes []*candidate, savings float64) bool {
	var t poolTotals
	disruption, price, balancedPrice, balanced := 0.0, 0.0, 0.0, false
	seen := map[string]bool{}
	for _, c := range nodes {
		price += c.price
		if c.pool.Spec.Disruption.ConsolidationPolicy != api.ConsolidationPolicyBalanced {
			continue
		}
		balanced = true
		balancedPrice += c.price
		disruption += c.disruptionCost
		if !seen[c.pool.Name] {
			seen[c.pool.Name] = true
			pt := p.totals[c.pool.Name]
			t.price += pt.price
			t.disruption += pt.disruption
		}
	}
	if !balanced {
		return true
	}
	if price > 0 {
		savings *= balancedPrice / price
	}
	return balancedScore(savings, disruption, t)*balancedK >= 1-scoreEpsilon
}

// scoreEpsilon absorbs float rounding at the threshold: a move scoring exactly 1/k is approved.
const scoreEpsilon = 1e-12
