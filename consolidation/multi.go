package consolidation

import (
	"slices"
)

// multiNode grows sets of nodes to remove together: candidates are tried in savings-ratio order,
// and each is kept when the simulation of the grown set still gives a valid command (every pod
// placed, at most one replacement, the replacement rules) that saves strictly more than the set
// did without it. Karpenter binary-searches one prefix of at most 100 candidates and keeps only
// prefixes; growing a set skips a candidate that does not help and goes on, so it finds the deletes
// the prefix search finds and more, and it also finds "delete two, shrink the third" merges. A set
// is committed at maxCommandNodes nodes and a new one is started.
//
// Every simulation may open NodeClaims, even when only a delete is wanted: without the pools the
// provisioner would not know the zones they offer, and a zonal spread would count fewer domains
// than exist (the delete would then skew it).
func (p *pass) multiNode(order []*candidate) error {
	var set []*candidate
	var best *draft
	pending := map[string]int{}
	flush := func() {
		if best != nil {
			p.commit(*best)
		}
		set, best, pending = nil, nil, map[string]int{}
	}
	for _, c := range order {
		if !p.commandsLeft() {
			break
		}
		if !p.usable(c, pending) || !p.balancedApproves([]*candidate{c}, c.price) {
			continue
		}
		trial := append(slices.Clone(set), c)
		if !p.pdbs.fits(trial) || !p.mayImprove(trial, best) {
			continue
		}
		d, _, err := p.tryRemove(trial, "multi-node")
		if err != nil {
			return err
		}
		if d != nil && (best == nil || d.savings > best.savings+minSavings) {
			set, best = trial, d
			pending[c.pool.Name]++
		}
		if len(set) == maxCommandNodes {
			flush()
		}
	}
	flush()
	return nil
}

// mayImprove is the capacity bound's verdict on a grown set: the rest of the cluster might take all
// its pods, or an instance type might hold what it cannot for less than the set would then save
// over the current best.
func (p *pass) mayImprove(trial []*candidate, best *draft) bool {
	if p.bound.mayDelete(trial) || p.in.Options.AllowSplit || p.in.Options.AllowManyToMany {
		return true
	}
	limit := 0.0
	for _, c := range trial {
		limit += c.price
	}
	if best != nil {
		limit -= best.savings
	}
	return p.bound.mayReplace(trial, limit)
}

// mergeToOne looks for M → 1 replacements (M → N with AllowManyToMany) among what multiNode left,
// as Karpenter does: a binary search over the prefix length of at most 100 candidates in order,
// keeping the longest prefix that makes a valid command. It repeats on what is left while it
// finds one.
func (p *pass) mergeToOne(order []*candidate) error {
	for p.commandsLeft() {
		prefix := p.mergePrefix(order)
		if len(prefix) < 2 {
			return nil
		}
		best, err := p.searchMerge(prefix)
		if err != nil || best == nil {
			return err
		}
		p.commit(*best)
	}
	return nil
}

// mergePrefix is the candidates still usable, charged against their pools' budgets and their
// PDBs' allowances in order (a candidate that would overdraw either is skipped).
func (p *pass) mergePrefix(order []*candidate) []*candidate {
	var out []*candidate
	pending := map[string]int{}
	for _, c := range order {
		if len(out) == maxCommandNodes {
			break
		}
		if p.usable(c, pending) && p.pdbs.fits(append(slices.Clone(out), c)) {
			out = append(out, c)
			pending[c.pool.Name]++
		}
	}
	return out
}

// searchMerge binary-searches the prefix length in [2, len(prefix)] for the longest valid
// command, assuming (as Karpenter does) that a prefix that fails makes longer ones fail too.
func (p *pass) searchMerge(prefix []*candidate) (*draft, error) {
	var best *draft
	lo, hi := 2, len(prefix)
	for lo <= hi {
		mid := (lo + hi) / 2
		d, _, err := p.tryRemove(slices.Clone(prefix[:mid]), "multi-node")
		if err != nil {
			return nil, err
		}
		if d != nil {
			best, lo = d, mid+1
		} else {
			hi = mid - 1
		}
	}
	return best, nil
}
