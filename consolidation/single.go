package consolidation

// singleNode tries every candidate left on its own, in savings-ratio order: delete it when the
// rest of the cluster takes its pods, else replace it with one cheaper NodeClaim (two with
// AllowSplit, more with AllowManyToMany). Unlike Karpenter, which stops at the first command,
// every candidate gets its chance; each command is simulated on the cluster the earlier ones
// leave. Candidates the capacity bound proves hopeless cost no simulation. A command whose drain
// the pass's PDB allowances cannot take now is deferred (pdbpace.go).
func (p *pass) singleNode(order []*candidate) error {
	for _, c := range order {
		if !p.commandsLeft() {
			return nil
		}
		if !p.usable(c, nil) || !p.balancedApproves([]*candidate{c}, c.price) || !p.mayRemove(c) {
			continue
		}
		d, _, err := p.tryRemove([]*candidate{c}, "single-node")
		switch {
		case err != nil:
			return err
		case d == nil:
		case p.pdbs.admits(d.nodes):
			p.commit(*d)
		default:
			p.deferCommand(d)
		}
	}
	return nil
}

// mayRemove is the capacity bound's verdict on c: the rest of the cluster might take its pods, or
// an instance type cheaper than c might hold what it cannot. With AllowSplit or AllowManyToMany
// several claims could share the rest, which the bound does not model, so it always says maybe.
func (p *pass) mayRemove(c *candidate) bool {
	if p.in.Options.AllowSplit || p.in.Options.AllowManyToMany {
		return true
	}
	return p.bound.mayDelete([]*candidate{c}) || p.bound.mayReplace([]*candidate{c}, c.price)
}
