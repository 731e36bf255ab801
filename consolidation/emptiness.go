package consolidation

import (
	"maps"
	"slices"
)

// emptiness deletes empty nodes: per pool, one command with as many of the pool's empty,
// consolidatable, unblocked candidates as its Empty budget allows, in name order. All three
// policies allow it; consolidateAfter: Never does not. "Empty" is Karpenter's: no pod anyone minds
// moving (disruption cost ≤ 1); pods that count as nothing still get somewhere, through
// provisioning, as for expiration. A node whose few pods would overdraw a PDB is deferred.
func (p *pass) emptiness() error {
	byPool := map[string][]*candidate{}
	for _, c := range p.cands {
		if !c.empty || !c.consolidatable || c.blocker != "" || !p.available(c) {
			continue
		}
		if _, never := poolPolicy(c.pool); never {
			continue
		}
		byPool[c.pool.Name] = append(byPool[c.pool.Name], c)
	}
	for _, pool := range slices.Sorted(maps.Keys(byPool)) {
		nodes := byPool[pool]
		n := min(len(nodes), p.budgets.allowed(pool, ReasonEmpty))
		if n == 0 {
			continue
		}
		nodes = p.emptyWithinPDBs(nodes[:n])
		if len(nodes) == 0 {
			continue
		}
		d, err := p.forcefulDelete(ReasonEmpty, "", nodes)
		if err != nil {
			return err
		}
		p.commit(d)
	}
	return nil
}

// emptyWithinPDBs keeps, in order, the nodes whose drains the PDB allowances still take together;
// each node left out is deferred as a delete of its own.
func (p *pass) emptyWithinPDBs(nodes []*candidate) []*candidate {
	var kept []*candidate
	for _, c := range nodes {
		if p.pdbs.fits(append(slices.Clone(kept), c)) {
			kept = append(kept, c)
			continue
		}
		p.deferCommand(&draft{kind: CommandDelete, reason: ReasonEmpty, nodes: []*candidate{c}, savings: c.price})
	}
	return kept
}
