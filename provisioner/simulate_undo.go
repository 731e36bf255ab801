package provisioner

// undoRun puts the engine back in the state activate left: the bins the run touched get their
// compiled state back, its new NodeClaims go, and the saved groups, pools and classes are
// restored. It costs what the run changed.
func (s *Simulator) undoRun(q *question) {
	e := s.eng
	for _, b := range e.touched {
		st := e.fixed[b.id]
		copy(b.used, st.used)
		b.ports = append(b.ports[:0], st.ports...)
		b.host = append(b.host[:0], st.host...)
		b.classes, b.pods, b.touched = b.classes[:0], b.pods[:0], false
		e.tree.update(b.id, e.binFree(b))
	}
	e.touched = e.touched[:0]
	e.tree.truncate(e.fixedBins)
	e.bins = e.bins[:e.fixedBins]
	for _, gs := range q.groups {
		gc := e.gc(gs.g)
		gc.match, gc.owner, gc.total = append(gc.match[:0], gs.counts.match...), append(gc.owner[:0], gs.counts.owner...), gs.counts.total
	}
	for i, u := range e.poolUsed {
		copy(u, q.pools[i])
	}
	for i, c := range q.classes {
		cq := &e.queues[c.id]
		copy(cq.pods, q.order[i])
		cq.next, cq.stuck = 0, false
		clear(cq.cursor)
		for _, pi := range cq.pods {
			e.placed[pi.idx] = podPlace{}
		}
	}
	e.resetRunCaches()
	if s.limitsOn {
		clear(e.optionsCache) // the baseline's claims leave the pools another usage
	}
	e.baseline = false
}

// deactivate undoes the run and the question: the taken nodes come back with their counts and
// charges, and the engine sees the whole snapshot again.
func (s *Simulator) deactivate(q *question) {
	s.undoRun(q)
	e := s.eng
	for _, es := range q.eligible {
		e.eligible[es.g.id] = es.old
	}
	for _, b := range q.gone {
		s.topo.apply(e, b, 1)
		b.dead = false
		if b.charge != nil {
			e.charge(b.pool, b.charge, 1)
		}
		e.tree.update(b.id, e.binFree(b))
	}
	e.classes, e.pods, e.pools, e.anyPreferNoSchedule = e.allClasses, e.allPods, e.allPools, e.pns
}

// truncate drops the leaves from n on (a Simulator's new NodeClaims of the last run), resetting them
// so that the inner maxima no longer count them.
func (t *fitTree) truncate(n int) {
	if n >= t.n {
		return
	}
	none := make(resVec, t.r)
	for i := range none {
		none[i] = -1
	}
	for i := n; i < t.n; i++ {
		t.update(i, none)
	}
	t.n = n
}
