package consolidation

import "github.com/napkit/napkit/api"

// drift replaces drifted nodes one at a time, empty ones first, then the longest drifted, within
// each pool's Drifted budget. Drift is eventual: it may open any number of replacements at any
// price (the node must go whatever it costs), but only when every pod that has to move finds a
// place. Blockers hold a drifted node back unless its NodeClaim has a terminationGracePeriod,
// which bounds how long a blocking pod can delay the drain; the node's own do-not-disrupt
// annotation holds it back regardless. The grace period also lets a drift replacement go when its
// drain would overdraw a PDB (it is charged, and the drain waits); without one such a replacement is
// deferred (pdbpace.go).
func (p *pass) drift() error {
	var drifted []*candidate
	for _, c := range p.cands {
		if c.drift != "" && p.available(c) && (c.blocker == "" || (hasGracePeriod(c) && !nodeDoNotDisrupt(c))) {
			drifted = append(drifted, c)
		}
	}
	for _, c := range driftOrder(drifted) {
		// An earlier drift command of this loop may have moved pods onto c: it is then a
		// destination the pass counts on, not a node to remove.
		if !p.available(c) || p.budgets.allowed(c.pool.Name, ReasonDrifted) < 1 {
			continue
		}
		d, ok, err := p.driftCommand(c)
		switch {
		case err != nil:
			return err
		case !ok:
		case hasGracePeriod(c) || p.pdbs.admits(d.nodes):
			p.commit(d)
		default:
			p.deferCommand(&d)
		}
	}
	return nil
}

// driftCommand simulates replacing c with whatever the pods need.
func (p *pass) driftCommand(c *candidate) (draft, bool, error) {
	nodes := []*candidate{c}
	d := draft{kind: CommandDelete, reason: ReasonDrifted, detail: c.drift, changed: c.driftChanged, nodes: nodes, savings: c.price,
		out: &outcome{source: map[string]string{}}}
	if len(c.pods) == 0 {
		return d, true, nil
	}
	plan, err := p.simulate(nodes, simulation{allowNew: true})
	if err != nil {
		return d, false, err
	}
	o := evaluate(nodes, plan)
	if !o.valid() {
		return d, false, nil
	}
	claims, worst, why := p.prices.priceAll(o.claims, replaceRule{anyPrice: true})
	if why != "" {
		return d, false, nil
	}
	d.out, d.claims, d.savings = o, claims, c.price-worst
	if len(claims) > 0 {
		d.kind = CommandReplace
	}
	return d, true, nil
}

// nodeDoNotDisrupt reports the node-level opt-out, which no grace period overrides.
func nodeDoNotDisrupt(c *candidate) bool {
	if c.node.Node.Annotations[api.AnnotationDoNotDisrupt] == "true" {
		return true
	}
	return c.node.NodeClaim != nil && c.node.NodeClaim.Annotations[api.AnnotationDoNotDisrupt] == "true"
}

// hasGracePeriod reports a NodeClaim with spec.terminationGracePeriod.
func hasGracePeriod(c *candidate) bool {
	return c.node.NodeClaim != nil && c.node.NodeClaim.Spec.TerminationGracePeriod != nil
}
