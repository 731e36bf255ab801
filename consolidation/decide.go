package consolidation

import (
	"cmp"
	"slices"
	"time"
)

// Decide runs one disruption pass over the snapshot and returns its commands: expiration, then
// emptiness, drift and consolidation (multi-node, then single-node). Unlike Karpenter, whose loop
// stops at the first method that finds something, one pass returns every command it finds; they
// hold together, each simulated on the cluster the earlier ones leave (see pass). Two exceptions:
// when the earlier methods spent budget consolidation would need, consolidation waits for the
// next pass (see budgetStarved); and when Karpenter's one consolidation command would save more
// than the consolidation commands found, the pass takes it instead (see karpenter.go), so a pass
// never saves less than Karpenter's on the same snapshot.
//
// Errors wrap ErrInvalidInput (the snapshot), ErrSimulation (the provisioner refused the
// snapshot) or ErrStopped (Options.Stop closed); ErrBudget is never returned (a misconfigured
// budget allows nothing and is reported in Blocked).
func Decide(in Input) (*Plan, error) {
	start := time.Now()
	p, skipped, err := startPass(&in)
	if err != nil {
		return nil, err
	}
	for _, method := range []func() error{p.expire, p.emptiness, p.drift, p.consolidate} {
		if err := p.stopped(); err != nil {
			return nil, err
		}
		if err := method(); err != nil {
			return nil, err
		}
	}
	if p.floor != nil {
		if p, err = p.withFloor(); err != nil {
			return nil, err
		}
	}
	return p.plan(skipped, time.Since(start)), nil
}

// startPass collects the candidates, their budgets and the simulator over the snapshot; skipped
// are the nodes that are not candidates, with the reason.
func startPass(in *Input) (*pass, []Blocked, error) {
	if err := checkStop(in.Options.Stop, 0); err != nil {
		return nil, nil, err // before the simulator's compile, the costliest step of a start
	}
	cands, skipped, err := collect(in)
	if err != nil {
		return nil, nil, err
	}
	b, err := newBudgets(in, cands)
	if err != nil {
		return nil, nil, err
	}
	p, err := newPass(in, cands, b)
	if err != nil {
		return nil, nil, err
	}
	return p, skipped, nil
}

// plan assembles the result: commands in reason order, what was kept back and why, the figures.
func (p *pass) plan(skipped []Blocked, elapsed time.Duration) *Plan {
	cmds := slices.Clone(p.commands)
	if cmds == nil {
		cmds = []Command{}
	}
	sortCommands(cmds)
	pl := &Plan{Kind: PlanKind, Commands: cmds, Deferred: p.deferredLeft(), Blocked: p.blocked(skipped)}
	pl.Stats = Stats{Nodes: len(p.in.Nodes), Candidates: len(p.cands), Simulations: p.simulations,
		DecideMillis: elapsed.Milliseconds(), UnderutilizedBudgetBound: p.underutilizedBound}
	for _, c := range cmds {
		pl.Stats.SavingsPerHour += c.SavingsPerHour
		pl.Stats.Evictions += len(c.Moves)
	}
	pl.Stats.SavingsPerHour = roundPrice(pl.Stats.SavingsPerHour)
	if pl.Stats.SavingsPerHour > 0 {
		pl.Stats.EvictionsPerDollar = roundPrice(float64(pl.Stats.Evictions) / pl.Stats.SavingsPerHour)
	}
	return pl
}

// blocked lists the nodes that were never candidates and the candidates a rule kept out of every
// command: a blocker, or a pool whose budgets are misconfigured (which allows nothing).
func (p *pass) blocked(skipped []Blocked) []Blocked {
	out := slices.Clone(skipped)
	for _, c := range p.cands {
		if p.removed[c.name] {
			continue
		}
		switch problems := p.budgets.problems(c.pool.Name); {
		case c.blocker != "":
			out = append(out, Blocked{Node: c.name, Reason: c.blocker})
		case len(problems) > 0:
			out = append(out, Blocked{Node: c.name, Reason: problems[0].Error()})
		}
	}
	if out == nil {
		out = []Blocked{}
	}
	slices.SortStableFunc(out, func(a, b Blocked) int { return cmp.Or(cmp.Compare(a.Node, b.Node), cmp.Compare(a.Reason, b.Reason)) })
	return out
}
