package provisioner

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// launchCandidate is an instance type a NodeClaim could launch as, at its cheapest offering.
type launchCandidate struct {
	t     int
	pair  int
	price float64
}

// launchList returns the types in mask that fit content (DaemonSets included) without a host-port
// clash, cheapest offering first, then name: the NodeClaim's launch list before truncation. limit
// stops the list early (0: no limit).
func (e *engine) launchList(p *pool, mask bitset, content resVec, ports []hostPort) []launchCandidate {
	return e.launchListN(p, mask, content, ports, 0)
}

func (e *engine) launchListN(p *pool, mask bitset, content resVec, ports []hostPort, limit int) []launchCandidate {
	var out []launchCandidate
	for _, lc := range e.launchOrder(p, mask) {
		pt := p.types[lc.t]
		if !content.fits(pt.alloc) || dsPortClash(pt, ports) {
			continue
		}
		out = append(out, lc)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}

// launchOrder lists every type with a pair in mask at its cheapest such pair, sorted by that price,
// then name; computed once per distinct mask (NodeClaims pinned alike share one).
func (e *engine) launchOrder(p *pool, mask bitset) []launchCandidate {
	key := p.name + "\x00"
	if mask != nil {
		key += string(bitsetKey(mask))
	}
	if o, ok := e.launchOrders[key]; ok {
		return o
	}
	var out []launchCandidate
	for t := range p.types {
		if pi := p.cheapestPair(mask, t); pi >= 0 {
			out = append(out, launchCandidate{t: t, pair: pi, price: p.pairs[pi].price})
		}
	}
	slices.SortStableFunc(out, func(a, b launchCandidate) int {
		return cmp.Or(cmp.Compare(a.price, b.price), cmp.Compare(p.types[a.t].name, p.types[b.t].name))
	})
	e.launchOrders[key] = out
	return out
}

// minValuesMet walks the launch list as Karpenter does: the shortest cheapest-first prefix that
// holds minValues distinct values for every key must fit within MaxInstanceTypes.
func (e *engine) minValuesMet(p *pool, mask bitset, content resVec, ports []hostPort) bool {
	list := e.launchList(p, mask, content, ports)
	n, ok := minValuesPrefix(p, mask, list)
	return ok && n <= e.opts.MaxInstanceTypes
}

// minValuesPrefix returns the length of the shortest prefix of list meeting every minValues, and
// false when even the whole list does not.
func minValuesPrefix(p *pool, mask bitset, list []launchCandidate) (int, bool) {
	seen := make([]map[string]bool, len(p.minValues))
	for i := range seen {
		seen[i] = map[string]bool{}
	}
	for n, lc := range list {
		met := true
		for i, kr := range p.minValues {
			for _, v := range typeValues(p, lc.t, mask, kr.key) {
				if kr.r.Has(v) {
					seen[i][v] = true
				}
			}
			met = met && len(seen[i]) >= *kr.r.MinValues
		}
		if met {
			return n + 1, true
		}
	}
	return len(list), false
}

// typeValues lists the values instance type t takes for key over its pairs in mask.
func typeValues(p *pool, t int, mask bitset, key string) []string {
	if !p.defined[key] {
		if r, ok := p.custom[key]; ok && r.Operator() == corev1.NodeSelectorOpIn {
			return r.Values()
		}
		return nil
	}
	pk := p.pairKey(key)
	pt := p.types[t]
	var out []string
	for i := pt.pair0; i < pt.pair0+pt.npair; i++ {
		if mask != nil && !mask.has(i) {
			continue
		}
		if nr := pk.nodeReqs[pk.of[i]]; nr != nil && nr.Operator() == corev1.NodeSelectorOpIn {
			for _, v := range nr.Values() {
				if !slices.Contains(out, v) {
					out = append(out, v)
				}
			}
		}
	}
	return out
}
