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
func (st *state) passes(pc *podCtx, i int, mins []int) bool {
	ns := &st.nodes[i]
	return st.fitsNominated(pc, i) && provisioner.Tolerates(pc.pod.Spec.Tolerations, ns.taints) && pc.selects(ns.labels) &&
		st.podAffinityOK(pc, i) && st.nominatedAntiOK(pc, i) && st.spreadOK(pc, i, mins)
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

// hardMinimums is each DoNotSchedule constraint's smallest count over the domains of the nodes
// the pod's node affinity admits (PodTopologySpread's "global minimum").
func (st *state) hardMinimums(pc *podCtx) []int {
	if len(pc.hard) == 0 {
		return nil
	}
	mins := make([]int, len(pc.hard))
	for k, c := range pc.hard {
		mins[k] = -1
		for i := range st.nodes {
			if !pc.selects(st.nodes[i].labels) {
				continue
			}
			if n, ok := c.count(i, c.host); ok && (mins[k] < 0 || n < mins[k]) {
				mins[k] = n
			}
		}
	}
	return mins
}

// spreadOK is PodTopologySpread's filter: the skew with the pod on node i stays within maxSkew.
func (st *state) spreadOK(pc *podCtx, i int, mins []int) bool {
	for k, c := range pc.hard {
		n, ok := c.count(i, c.host)
		if !ok || mins[k] < 0 || n+c.self-mins[k] > c.maxSkew {
			return false
		}
	}
	return true
}
