package provisioner

// removePod takes a placed pod off its bin and returns it to its class's pending pods, undoing its
// resources, ports and topology counts. The bin keeps its narrowing (a NodeClaim's requirements
// only ever narrow), and becomes dead when it was a new NodeClaim left empty.
func (e *engine) removePod(pi *podInfo) {
	b, c := e.binOf(pi), pi.class
	if b == nil {
		return
	}
	e.touch(b)
	for i, x := range b.pods {
		if x == pi {
			last := len(b.pods) - 1
			b.pods[i] = b.pods[last]
			b.pods = b.pods[:last]
			break
		}
	}
	b.used.addScaled(c.req, -1)
	if len(c.ports) > 0 {
		e.dropPorts(b, c.ports)
	}
	e.unrecord(b, c, 1)
	// Return the pod to the class's pending tail: swap it with the last placed pod.
	q := &e.queues[c.id]
	at := q.indexOf(pi)
	q.next--
	q.pods[at], q.pods[q.next] = q.pods[q.next], q.pods[at]
	e.placed[pi.idx].bin = nil
	e.tree.update(b.id, e.binFree(b))
}

func (q *classQueue) indexOf(pi *podInfo) int {
	for i := 0; i < q.next; i++ {
		if q.pods[i] == pi {
			return i
		}
	}
	return -1
}

func (e *engine) dropPorts(b *bin, ports []hostPort) {
	for _, hp := range ports {
		for i, x := range b.ports {
			if x == hp {
				b.ports = append(b.ports[:i], b.ports[i+1:]...)
				break
			}
		}
	}
}

// retire marks an empty new NodeClaim dead and releases its share of the pool's limits.
func (e *engine) retire(b *bin) {
	if b.kind != binNew || len(b.pods) > 0 || b.dead {
		return
	}
	b.dead = true
	if b.charge != nil {
		e.charge(b.pool, b.charge, -1)
		b.charge = nil
	}
	e.tree.update(b.id, e.binFree(b))
}
