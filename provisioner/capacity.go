package provisioner

import (
	"github.com/napkit/napkit/requirements"

	corev1 "k8s.io/api/core/v1"
)

func inRequirement(key string, values []string) *requirements.Requirement {
	return requirements.NewRequirement(key, corev1.NodeSelectorOpIn, values...)
}

// checkCapacity caps the placement at what fits: the node's free room, or for a new NodeClaim its
// target type (choosing or re-choosing the target when the bin is fresh or narrowing excluded it),
// then checks the pool's minValues.
func (e *engine) checkCapacity(pl *placement) bool {
	b, c := pl.b, pl.c
	if b.kind != binNew {
		k := copiesInto(c.req, b.cap, b.used, pl.n)
		if k == 0 {
			pl.fail(CodeResources, true)
			return false
		}
		pl.n = k
		return true
	}
	if b.growable {
		if !e.checkGrowable(pl) {
			return false
		}
	} else if !e.checkTarget(pl) {
		return false
	}
	return e.checkMinValues(pl)
}

// copiesInto returns how many copies of req fit in cap − used, at most limit.
func copiesInto(req, cap, used resVec, limit int) int {
	k := int64(limit)
	for i, n := range req {
		if n <= 0 {
			continue
		}
		free := cap[i] - used[i]
		if free < n {
			return 0
		}
		k = min(k, free/n)
	}
	return int(k)
}

func (e *engine) checkTarget(pl *placement) bool {
	b, c := pl.b, pl.c
	p := b.pool
	mask := pl.curMask()
	t := pl.target
	if t < 0 || !p.typeIn(mask, t) || dsPortClash(p.types[t], c.ports) {
		var code Code
		if t, code = e.chooseTarget(b, mask, c); t < 0 {
			pl.fail(code, true)
			return false
		}
	}
	k := copiesInto(c.req, p.types[t].alloc, b.used, pl.n)
	if k == 0 {
		pl.fail(CodeResources, true)
		return false
	}
	pl.n, pl.target = k, t
	return true
}

func dsPortClash(pt *ptype, ports []hostPort) bool {
	if pt.ds == nil || len(ports) == 0 {
		return false
	}
	_, clash := portClash(ports, pt.ds.ports)
	return clash
}

// checkGrowable is the baseline's bin: it keeps every type that still fits, like Karpenter's
// NodeClaim, and places as many pods as the largest of them takes.
func (e *engine) checkGrowable(pl *placement) bool {
	b, c := pl.b, pl.c
	p := b.pool
	mask := pl.curMask()
	list := b.fitList
	fresh := list == nil
	if fresh {
		list = e.allTypes(p)
	}
	best, code := 0, CodeResources
	kept := make([]int32, 0, len(list))
	counts := make([]int, 0, len(list))
	for _, t := range list {
		pt := p.types[t]
		if !p.typeIn(mask, int(t)) || dsPortClash(pt, c.ports) {
			continue
		}
		if fresh && !e.withinLimits(p, pt.limitCap, nil) {
			code = CodeLimits
			continue
		}
		k := copiesInto(c.req, pt.alloc, b.used, pl.n)
		if k == 0 {
			continue
		}
		kept, counts = append(kept, t), append(counts, k)
		best = max(best, k)
	}
	if best == 0 {
		pl.fail(code, true)
		return false
	}
	out := kept[:0]
	for i, t := range kept {
		if counts[i] >= best {
			out = append(out, t)
		}
	}
	pl.n, pl.fitList = best, out
	return true
}

func (e *engine) allTypes(p *pool) []int32 {
	if l, ok := e.typeLists[p.idx]; ok {
		return l
	}
	l := make([]int32, len(p.types))
	for i := range l {
		l[i] = int32(i)
	}
	e.typeLists[p.idx] = l
	return l
}

// checkMinValues enforces the pool's minValues on the NodeClaim the placement would leave: with
// Strict it retries with a single pod and then rejects; with BestEffort it marks the claim relaxed.
func (e *engine) checkMinValues(pl *placement) bool {
	p := pl.b.pool
	if len(p.minValues) == 0 {
		return true
	}
	for {
		content := pl.b.used.clone()
		content.addScaled(pl.c.req, int64(pl.n))
		if e.minValuesMet(p, pl.curMask(), content, append(pl.b.ports, pl.c.ports...)) {
			return true
		}
		if pl.n > 1 {
			pl.n = 1
			continue
		}
		if e.opts.MinValuesPolicy == MinValuesBestEffort {
			pl.relaxed = true
			return true
		}
		pl.fail(CodeMinValues, true)
		return false
	}
}
