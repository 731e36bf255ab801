package consolidation

// Karpenter's own consolidation decision is napkit's floor. Karpenter's loop makes one command
// a pass: the longest valid prefix of at most 100 candidates in savings-ratio order (binary
// search, M → 0 or M → 1), else the first candidate in that order with a valid delete or
// replace. napkit's search grows sets differently and finds more in total, but a greedy search
// can land elsewhere: so when Karpenter's one command would save more than every consolidation
// command napkit found, the pass takes Karpenter's command instead. A pass thus never saves less,
// by Karpenter's own measure (the removed price minus the replacements' worst launch price), than
// Karpenter's pass on the same snapshot.

// karpenterDraft is the command Karpenter's consolidation would make on the snapshot as the pass
// has it now, or nil, paced by the PDB allowances as the pass's own commands are. It commits
// nothing.
func (p *pass) karpenterDraft(order []*candidate) (*draft, error) {
	if prefix := p.mergePrefix(order); len(prefix) >= 2 {
		best, err := p.searchMerge(prefix)
		if err != nil || best != nil {
			return best, err
		}
	}
	for _, c := range order {
		if !p.usable(c, nil) || !p.pdbs.admits([]*candidate{c}) || !p.balancedApproves([]*candidate{c}, c.price) || !p.mayRemove(c) {
			continue
		}
		d, _, err := p.tryRemove([]*candidate{c}, "single-node")
		if err != nil || d != nil {
			return d, err
		}
	}
	return nil, nil
}

// consolidationSavings sums the savings of the pass's Underutilized commands.
func (p *pass) consolidationSavings() float64 {
	total := 0.0
	for _, c := range p.commands {
		if c.Reason == ReasonUnderutilized {
			total += c.SavingsPerHour
		}
	}
	return total
}

// withFloor redoes the pass with Karpenter's command in place of the consolidation commands it
// found: a fresh pass repeats expiration, emptiness and drift (deterministic, so the same
// commands, on which the floor was simulated) and commits the floor. It costs a second compile of
// the snapshot, paid only by the passes that need it.
func (p *pass) withFloor() (*pass, error) {
	b, err := newBudgets(p.in, p.cands)
	if err != nil {
		return nil, err
	}
	q, err := newPass(p.in, p.cands, b)
	if err != nil {
		return nil, err
	}
	for _, method := range []func() error{q.expire, q.emptiness, q.drift} {
		if err := method(); err != nil {
			return nil, err
		}
	}
	q.commit(*p.floor)
	q.simulations += p.simulations
	q.underutilizedBound = p.underutilizedBound
	return q, nil
}
