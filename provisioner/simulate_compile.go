package provisioner

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// classLists are a class's group lists as compiled over the whole snapshot; a question keeps the
// groups its own Solve input would have interned (see question.inScope).
type classLists struct {
	hMatch, zMatch, inverse []int32
}

// compile builds the engine over the universe input: the snapshot's pending pods plus a pending
// copy of every evacuable bound pod, so that every class, group and domain a question can need
// exists before the first question.
func (s *Simulator) compile() error {
	universe, origin := s.universeInput()
	p, err := compile(&universe, s.opts, true)
	if err != nil {
		return err
	}
	e := p.newEngine(false)
	s.eng = e
	for _, pi := range e.pods {
		if pi.class.err != nil && origin[pi.pod] < 0 {
			return pi.class.err // a pod already pending: Solve fails on it too
		}
	}
	s.indexPods(origin)
	s.indexBins()
	s.topo = newSimTopology(e)
	s.indexClasses()
	for _, p := range e.pools {
		s.poolPNS = s.poolPNS || p.hasPreferNoSchedule()
		s.limitsOn = s.limitsOn || len(p.limits) > 0
	}
	s.groupMk = make([]int, len(e.groups))
	return nil
}

// universeInput is the snapshot with every evacuable bound pod also pending (a shallow copy with
// no node name), and, per pending pod, the index of the node it comes from (-1: already pending).
func (s *Simulator) universeInput() (Input, map[*corev1.Pod]int) {
	u := s.in
	u.Options = s.opts
	u.Pods = slices.Clone(s.in.Pods)
	origin := make(map[*corev1.Pod]int, len(s.in.Pods))
	for _, p := range s.in.Pods {
		origin[p] = -1
	}
	for i, n := range s.in.Nodes {
		for _, p := range n.Pods {
			if p == nil || !Evacuates(p) {
				continue
			}
			cp := *p
			cp.Spec.NodeName = ""
			u.Pods = append(u.Pods, &cp)
			origin[&cp] = i
		}
	}
	return u, origin
}

// indexPods splits the compiled pods into the always-pending ones and each node's movable ones.
func (s *Simulator) indexPods(origin map[*corev1.Pod]int) {
	s.moved = make([][]*podInfo, len(s.in.Nodes))
	s.pendingOf = map[*podClass][]*podInfo{}
	for _, pi := range s.eng.pods {
		if i, ok := origin[pi.pod]; ok && i >= 0 {
			s.moved[i] = append(s.moved[i], pi)
			continue
		}
		s.pending = append(s.pending, pi)
	}
	// Classes keep their pods in queue order; the pending subset keeps it too.
	for _, c := range s.eng.classes {
		for _, pi := range c.pods {
			if i, ok := origin[pi.pod]; !ok || i < 0 {
				s.pendingOf[c] = append(s.pendingOf[c], pi)
			}
		}
	}
}

// indexBins maps nodes to their bins and counts the nodes with PreferNoSchedule taints.
func (s *Simulator) indexBins() {
	e := s.eng
	s.nodeBin = make([]*bin, len(s.in.Nodes))
	s.pnsBin = make([]bool, e.fixedBins)
	byName := make(map[string]*bin, e.fixedBins)
	for _, b := range e.bins[:e.fixedBins] {
		if b.kind == binNode {
			byName[b.name] = b
		}
	}
	for i, n := range s.in.Nodes {
		b := byName[n.Node.Name]
		s.nodeBin[i] = b
		for _, t := range n.Node.Spec.Taints {
			if t.Effect == corev1.TaintEffectPreferNoSchedule && !s.pnsBin[b.id] {
				s.pnsBin[b.id] = true
				s.pnsNodes++
			}
		}
	}
}

// indexClasses keeps each class's compiled variants and group lists.
func (s *Simulator) indexClasses() {
	e := s.eng
	pns := 0
	if e.anyPreferNoSchedule {
		pns = 1
	}
	s.variants = make([][2][]*variant, len(e.classes))
	s.lists = make([]classLists, len(e.classes))
	s.classMk = make([]int, len(e.classes))
	for _, c := range e.classes {
		s.variants[c.id][pns] = c.variants
		s.lists[c.id] = classLists{hMatch: c.hMatch, zMatch: c.zMatch, inverse: c.inverse}
	}
}

// variantsFor returns (building once) a class's variants for a PreferNoSchedule setting.
func (s *Simulator) variantsFor(c *podClass, pns bool) []*variant {
	k := 0
	if pns {
		k = 1
	}
	if v := s.variants[c.id][k]; v != nil {
		return v
	}
	e := s.eng
	saved := e.anyPreferNoSchedule
	e.anyPreferNoSchedule = pns
	s.variants[c.id][k] = e.buildVariants(c)
	e.anyPreferNoSchedule = saved
	return s.variants[c.id][k]
}
