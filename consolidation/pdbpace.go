package consolidation

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// This file paces a pass's evictions by PodDisruptionBudget. Karpenter (and napkit before it)
// blocks a node only when one of its pods' PDBs allows 0 disruptions, and never counts the
// evictions it plans: one command, or several in one pass, can then ask a PDB for more evictions
// than it allows; the eviction API refuses the rest and the nodes sit tainted, half-drained, with
// their replacements already paid for. Here every command of a pass is charged, per PDB, for the
// evictions its drain asks (every evicted pod against every PDB that matches it), and a command
// that would overdraw waits:
//
//   - Growing a multi-node set skips a node that would overdraw: the set is split, and the node
//     gets its own chance later in the pass.
//   - A single node whose drain overdraws what is left is deferred to a later pass, and the plan
//     names it, with the PDBs, in Plan.Deferred; so is a drift replacement. Emptiness keeps the
//     nodes that fit and defers the rest. A deferred command whose nodes a later command of the
//     pass took, or moved pods onto, is dropped from the list (that command saves what the pass
//     can realise, and the deferred one no longer holds as simulated).
//   - One exception keeps 2-per-node layouts from never consolidating: a single node holding more
//     of an app's pods than its PDB allows at all still gets its command when no other command of
//     the pass touches that PDB. Its drain goes one allowance at a time (the controller waits for
//     the PDB between evictions), the command names the PDB in PacedBy, and the PDB is closed
//     to the rest of the pass.
//   - Forceful commands (expiration, and drift of a node with a terminationGracePeriod) are
//     charged, so the graceful methods see what they leave, but never held back: their drains
//     wait on the PDB as Karpenter's do, and the grace period bounds the wait.
//
// Why split before defer, and drop last: the part of a command that fits saves its share now, and
// what is left over saves the same in a later pass as it would have; deferring the whole command
// saves nothing now. A deferred command's nodes stay free for any other command of the pass (if one
// takes them, it realises savings now, which beats waiting), so the list only names what is
// really waiting on a PDB.
//
// Options.UnpacedPDBs turns the pacing off (Karpenter's behaviour), for measuring what it costs.

// pdbCharge is the evictions a node's drain asks of one PDB.
type pdbCharge struct {
	// pdb is namespace/name.
	pdb string
	n   int
	// allowed is the PDB's allowance at the start of the pass.
	allowed int
}

// charges lists the evictions draining pods asks of each PDB, sorted by PDB.
func (ix pdbIndex) charges(pods []*corev1.Pod) []pdbCharge {
	byPDB := map[string]*pdbCharge{}
	for _, pod := range pods {
		if pod == nil {
			continue
		}
		for _, e := range ix.matching(pod) {
			if !charged(pod, e) {
				continue
			}
			key := e.pdb.Namespace + "/" + e.pdb.Name
			if byPDB[key] == nil {
				byPDB[key] = &pdbCharge{pdb: key, allowed: e.allowed}
			}
			byPDB[key].n++
		}
	}
	out := make([]pdbCharge, 0, len(byPDB))
	for _, key := range slices.Sorted(maps.Keys(byPDB)) {
		out = append(out, *byPDB[key])
	}
	return out
}

// pdbLedger is what each PDB has left to allow in the pass.
type pdbLedger struct {
	off  bool
	left map[string]int
	// touched are the PDBs a command of the pass has charged.
	touched map[string]bool
}

func newPDBLedger(cands []*candidate, off bool) *pdbLedger {
	l := &pdbLedger{off: off, left: map[string]int{}, touched: map[string]bool{}}
	for _, c := range cands {
		for _, ch := range c.charges {
			l.left[ch.pdb] = ch.allowed
		}
	}
	return l
}

// demand sums the nodes' charges per PDB.
func demand(nodes []*candidate) map[string]int {
	out := map[string]int{}
	for _, c := range nodes {
		for _, ch := range c.charges {
			out[ch.pdb] += ch.n
		}
	}
	return out
}

// over lists, sorted, the PDBs the nodes' drains would overdraw.
func (l *pdbLedger) over(nodes []*candidate) []string {
	if l.off {
		return nil
	}
	var out []string
	for pdb, n := range demand(nodes) {
		if n > l.left[pdb] {
			out = append(out, pdb)
		}
	}
	slices.Sort(out)
	return out
}

// fits reports whether the nodes' drains stay within what every PDB has left.
func (l *pdbLedger) fits(nodes []*candidate) bool {
	return len(l.over(nodes)) == 0
}

// paced reports whether nodes may go under the exception: one node, and every PDB it overdraws
// allows something and is untouched by the pass.
func (l *pdbLedger) paced(nodes []*candidate) bool {
	if l.off || len(nodes) != 1 {
		return false
	}
	for _, pdb := range l.over(nodes) {
		if l.touched[pdb] || l.left[pdb] <= 0 {
			return false
		}
	}
	return true
}

// admits reports whether a command removing nodes may be committed now.
func (l *pdbLedger) admits(nodes []*candidate) bool {
	return l.fits(nodes) || l.paced(nodes)
}

// charge takes the nodes' evictions from the ledger and returns the PDBs they overdrew, which the
// drain must pace. An overdrawn PDB is left with nothing, so no later command touches it.
func (l *pdbLedger) charge(nodes []*candidate) []string {
	var pacedBy []string
	need := demand(nodes)
	for _, pdb := range slices.Sorted(maps.Keys(need)) {
		n := need[pdb]
		if n == 0 {
			continue
		}
		l.touched[pdb] = true
		if n > l.left[pdb] {
			pacedBy = append(pacedBy, pdb)
		}
		l.left[pdb] = max(l.left[pdb]-n, 0)
	}
	if l.off {
		return nil
	}
	return pacedBy
}

// deferral describes why nodes' command waits: per PDB it would overdraw, the evictions it asks
// and what is left.
func (l *pdbLedger) deferral(nodes []*candidate) []DeferredBudget {
	need := demand(nodes)
	var out []DeferredBudget
	for _, pdb := range l.over(nodes) {
		out = append(out, DeferredBudget{PodDisruptionBudget: pdb, Evictions: need[pdb], Allowed: l.left[pdb]})
	}
	return out
}

// deferCommand records a command the ledger holds back.
func (p *pass) deferCommand(d *draft) {
	def := Deferred{Kind: d.kind, Reason: d.reason, Detail: d.detail, SavingsPerHour: roundPrice(d.savings),
		Budgets: p.pdbs.deferral(d.nodes)}
	for _, c := range d.nodes {
		def.Nodes = append(def.Nodes, c.name)
	}
	slices.Sort(def.Nodes)
	p.deferred = append(p.deferred, def)
}

// deferredLeft lists the deferred commands none of whose nodes a later command of the pass removed
// or moved pods onto (the command as simulated no longer holds), once each, sorted by nodes.
func (p *pass) deferredLeft() []Deferred {
	out := []Deferred{}
	seen := map[string]bool{}
	for _, d := range p.deferred {
		key := fmt.Sprint(d.Nodes)
		if seen[key] || slices.ContainsFunc(d.Nodes, func(n string) bool { return p.removed[n] || p.touched[n] }) {
			continue
		}
		seen[key] = true
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b Deferred) int {
		return cmp.Or(slices.Compare(a.Nodes, b.Nodes), cmp.Compare(a.Reason, b.Reason))
	})
	return out
}
