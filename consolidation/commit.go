package consolidation

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/napkit/napkit/provisioner"
)

// draft is a command before the pass accepts it.
type draft struct {
	kind   CommandKind
	reason Reason
	detail string
	// changed says what changed, for drift commands.
	changed []string
	nodes   []*candidate
	out     *outcome
	// claims are the replacements, already priced (filtered launch lists, pinned capacity type).
	claims  []provisioner.NodeClaim
	savings float64
}

// commit accepts a command: its nodes leave, the nodes that receive its pods are frozen, its
// replacements get names unique in the pass, and the budgets are charged.
func (p *pass) commit(d draft) Command {
	renames := p.nameClaims(d.claims)
	cmd := Command{Kind: d.kind, Reason: d.reason, Detail: d.detail, Changed: d.changed, Nodes: make([]string, 0, len(d.nodes)),
		SavingsPerHour: roundPrice(d.savings), Moves: make([]Move, 0, len(d.out.moves))}
	perPool := map[string]int{}
	for _, c := range d.nodes {
		cmd.Nodes = append(cmd.Nodes, c.name)
		cmd.DisruptionCost += c.disruptionCost
		p.removed[c.name] = true
		perPool[c.pool.Name]++
	}
	cmd.DisruptionCost = roundPrice(cmd.DisruptionCost)
	slices.Sort(cmd.Nodes)
	for _, pool := range slices.Sorted(maps.Keys(perPool)) {
		p.budgets.take(pool, d.reason, perPool[pool])
	}
	cmd.PacedBy = p.pdbs.charge(d.nodes)
	for i := range d.claims {
		d.claims[i].Name = renames[d.claims[i].Name]
		p.claims[d.claims[i].Name] = true
	}
	zoneOf := map[string]string{}
	for _, nc := range d.claims {
		zoneOf[nc.Name] = nc.Zone
	}
	for _, m := range d.out.moves {
		if to, ok := renames[m.To]; ok {
			m.To = to
		} else if !p.inSim[m.To] {
			// A pod the simulation put on a claim the command does not create waits for provisioning.
			m.To = ""
		}
		p.noteMove(m, d.out.source[m.Pod], zoneOf)
		cmd.Moves = append(cmd.Moves, m)
	}
	switch {
	case len(d.claims) == 1:
		cmd.Replacement = &d.claims[0]
	case len(d.claims) > 1:
		cmd.Replacements = d.claims
		cmd.Replacement = &cmd.Replacements[0]
	}
	p.commands = append(p.commands, cmd)
	p.bound.refresh(p)
	return cmd
}

// noteMove freezes the node a pod lands on and marks the simulator stale when a zonal term could
// now see the pod in the wrong zone.
func (p *pass) noteMove(m Move, from string, claimZones map[string]string) {
	zone, isClaim := claimZones[m.To]
	if !isClaim && m.To != "" {
		p.touched[m.To], p.frozen[m.To] = true, true
		zone = p.zones[m.To]
	}
	if p.zonal && (m.To == "" || zone != p.zones[from]) {
		p.stale = true
	}
}

// nameClaims gives each replacement the name "<pool>-<n>", skipping names in use, so replacements
// of different commands (each simulation numbers its claims from 1) never collide.
func (p *pass) nameClaims(claims []provisioner.NodeClaim) map[string]string {
	renames := make(map[string]string, len(claims))
	for _, nc := range claims {
		for {
			p.claimSeq[nc.NodePool]++
			name := fmt.Sprintf("%s-%d", nc.NodePool, p.claimSeq[nc.NodePool])
			if !p.taken[name] {
				p.taken[name] = true
				renames[nc.Name] = name
				break
			}
		}
	}
	return renames
}

// roundPrice keeps prices to 1e-9 USD so summation order never shows in the output.
func roundPrice(v float64) float64 {
	return math.Round(v*1e9) / 1e9
}
