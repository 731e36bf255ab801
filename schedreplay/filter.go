package schedreplay

import (
	"k8s.io/apimachinery/pkg/labels"

	"github.com/napkit/napkit/provisioner"
)

// feasible lists the nodes that pass every filter, in node order.
func (st *state) feasible(pc *podCtx) []int {
	mins := st.hardMinimums(pc)
	out := st.feasibleBuf[:0]
	defer func() { st.feasibleBuf = out[:0] }()
	for i := range st.nodes {
		if st.passes(pc, i, mins) {
			out = append(out, i)
		}
	}
	return out
}

// passes reports whether node i passes every filter for the pod, the pods nominated to it counted.
func (st *state) passes(pc *podCtx, i int, mins []minimum) bool {
	ns := &st.nodes[i]
	return st.fitsNominated(pc, i) && provisioner.Tolerates(pc.pod.Spec.Tolerations, ns.taints) && pc.selects(ns.labels) &&
		st.podAffinityOK(pc, i) && st.nominatedAntiOK(pc, i) && st.spreadOK(pc, i, mins) &&
		st.nominatedSpreadOK(pc, i, mins)
}

// selects is NodeAffinity's filter: the nodeSelector and one of the required terms.
func (pc *podCtx) selects(l map[string]string) bool {
	set := labels.Set(l)
	if pc.nodeSel != nil && !pc.nodeSel.Matches(set) {
		return false
	}
	if pc.nodeTerms == nil {
		return true
	}
	for _, t := range pc.nodeTerms {
		if t.Matches(set) {
			return true
		}
	}
	return false
}

// podAffinityOK is InterPodAffinity's filter.
func (st *state) podAffinityOK(pc *podCtx, i int) bool {
	for _, h := range pc.repelledBy {
		if d := st.domains(h.key).of[i]; d >= 0 && h.count[d] > 0 {
			return false
		}
	}
	for _, t := range pc.anti {
		if n, ok := t.count(i, t.host); ok && n > 0 {
			return false
		}
	}
	for _, t := range pc.affinity {
		n, ok := t.count(i, t.host)
		if !ok || (n == 0 && !pc.affinityFirst) {
			return false
		}
	}
	return true
}

// minimum is one DoNotSchedule constraint's smallest count over the admitted domains (least,
// -1 when none), the domain holding it, and the smallest count of any other domain (second, -1
// when none): PodTopologySpread's two critical paths, which tell the minimum after a nominated
// pod raises one domain's count (nominatedSpreadOK).
type minimum struct {
	least, domain, second int
}

// hardMinimums is each DoNotSchedule constraint's smallest count over the domains of the nodes
// the pod's node affinity admits (PodTopologySpread's "global minimum").
func (st *state) hardMinimums(pc *podCtx) []minimum {
	if len(pc.hard) == 0 {
		return nil
	}
	mins := make([]minimum, len(pc.hard))
	for k, c := range pc.hard {
		m := minimum{least: -1, domain: -1, second: -1}
		for i := range st.nodes {
			if !pc.selects(st.nodes[i].labels) {
				continue
			}
			if n, ok := c.count(i, c.host); ok {
				m.observe(c.domainOf(i), n)
			}
		}
		mins[k] = m
	}
	return mins
}

// observe counts domain d's n: a smaller n becomes the least (the old least the second); another
// domain's n below the second becomes the second. A domain seen again (one per node in it) has
// the same count.
func (m *minimum) observe(d, n int) {
	switch {
	case m.least < 0:
		m.least, m.domain = n, d
	case d == m.domain:
	case n < m.least:
		m.second, m.least, m.domain = m.least, n, d
	case m.second < 0 || n < m.second:
		m.second = n
	}
}

// raised is the minimum once domain d's count n has grown by extra.
func (m minimum) raised(d, n, extra int) int {
	if d != m.domain {
		return m.least
	}
	if m.second >= 0 && m.second < n+extra {
		return m.second
	}
	return n + extra
}

// domainOf is node i's domain of the constraint's key (the node itself for the hostname).
func (c spread) domainOf(i int) int {
	if c.host {
		return i
	}
	return c.of[i]
}

// spreadOK is PodTopologySpread's filter: the skew with the pod on node i stays within maxSkew.
func (st *state) spreadOK(pc *podCtx, i int, mins []minimum) bool {
	for k, c := range pc.hard {
		n, ok := c.count(i, c.host)
		if !ok || mins[k].least < 0 || n+c.self-mins[k].least > c.maxSkew {
			return false
		}
	}
	return true
}
