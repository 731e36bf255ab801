package consolidation

import (
	"fmt"
	"maps"
	"slices"
)

// Validation is Validate's verdict on one command: the command as it holds now, or why not.
type Validation struct {
	// Command is the command simulated again (its prices, moves and launch lists as they are now;
	// comparing the launch lists with the original's is the caller's rule), nil when it no longer
	// holds.
	Command *Command
	Why     string
}

// Validate re-checks the Empty and Underutilized commands of an earlier Decide on a fresh
// snapshot, as Karpenter's validation does (../shared/reference karpenter-core.md 2.13), in the
// order given, each on the cluster the earlier valid ones leave (as Decide committed them): every
// node is still a candidate its method may take (there, not deleting, not nominated, not blocked,
// not receiving an earlier command's pods, past consolidateAfter, empty for Empty) within its
// pool's budget and the PDB allowances (a single node's drain may be paced, as Decide allows), and
// the same removal, simulated again, gives a command of
// the same kind with as many replacements.
//
// Deciding the whole pass again and asking for identical commands is stricter: a greedy search on
// a cluster that moved a little (the previous command's evicted pods landed elsewhere than
// simulated) picks other nodes although the commands still hold, which threw away 8 of 22
// commands of a 1,000-pod scale-down (docs/benchmarks.md, issue 18). Drift and expiration
// commands are not re-simulated (an input error): their rules do not come from a search.
// Options.Stop ends it between simulations with an error wrapping ErrStopped, as it does Decide.
func Validate(in Input, cmds []Command) ([]Validation, error) {
	for i, cmd := range cmds {
		if cmd.Reason != ReasonEmpty && cmd.Reason != ReasonUnderutilized {
			return nil, inputErr(fmt.Sprintf("Commands[%d].Reason", i), string(cmd.Reason), "only Empty and Underutilized commands are validated")
		}
	}
	p, skipped, err := startPass(&in)
	if err != nil {
		return nil, err
	}
	blocked := make(map[string]string, len(skipped))
	for _, b := range skipped {
		blocked[b.Node] = b.Reason
	}
	out := make([]Validation, len(cmds))
	for i, cmd := range cmds {
		if err := p.stopped(); err != nil {
			return nil, err
		}
		if out[i], err = p.validate(cmd, blocked); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// validate simulates cmd again on the pass and commits it when it holds; blocked says why the
// nodes that are no candidates are not.
func (p *pass) validate(cmd Command, blocked map[string]string) (Validation, error) {
	nodes, why := p.validCandidates(cmd, blocked)
	if why != "" {
		return Validation{Why: why}, nil
	}
	var d *draft
	var err error
	if cmd.Reason == ReasonEmpty {
		empty, err := p.forcefulDelete(ReasonEmpty, "", nodes)
		if err != nil {
			return Validation{}, err
		}
		d = &empty
	} else if d, why, err = p.tryRemove(nodes, cmd.Detail); err != nil || d == nil {
		return Validation{Why: why}, err
	}
	if d.kind != cmd.Kind || len(d.claims) != replacementCount(cmd) {
		return Validation{Why: fmt.Sprintf("the removal now gives a %s with %d replacements", d.kind, len(d.claims))}, nil
	}
	got := p.commit(*d)
	return Validation{Command: &got}, nil
}

// validCandidates looks up cmd's nodes among the pass's candidates and checks what cmd's method
// asks of them, their pools' budgets and the PDB allowances; why says what no longer holds.
func (p *pass) validCandidates(cmd Command, blocked map[string]string) ([]*candidate, string) {
	byName := make(map[string]*candidate, len(p.cands))
	for _, c := range p.cands {
		byName[c.name] = c
	}
	var nodes []*candidate
	perPool := map[string]int{}
	for _, name := range cmd.Nodes {
		c := byName[name]
		switch {
		case c == nil && blocked[name] != "":
			return nil, "node " + name + " is no longer a candidate: " + blocked[name]
		case c == nil:
			return nil, "node " + name + " is no longer a candidate"
		case !p.available(c):
			return nil, "node " + name + " receives the pods of an earlier command"
		case cmd.Reason == ReasonEmpty && !(c.empty && c.consolidatable && c.blocker == ""):
			return nil, "node " + name + " is no longer empty and consolidatable"
		case cmd.Reason == ReasonUnderutilized && !p.consolidatable(c):
			return nil, "node " + name + " is no longer consolidatable"
		}
		nodes = append(nodes, c)
		perPool[c.pool.Name]++
	}
	for _, pool := range slices.Sorted(maps.Keys(perPool)) {
		if perPool[pool] > p.budgets.allowed(pool, cmd.Reason) {
			return nil, "NodePool " + pool + "'s budget no longer allows it"
		}
	}
	if !p.pdbs.admits(nodes) {
		return nil, "the PDB allowances no longer take its evictions"
	}
	return nodes, ""
}

// replacementCount counts a command's replacements, however it lists them.
func replacementCount(cmd Command) int {
	switch {
	case len(cmd.Replacements) > 0:
		return len(cmd.Replacements)
	case cmd.Replacement != nil:
		return 1
	}
	return 0
}
