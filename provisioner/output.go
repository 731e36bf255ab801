package provisioner

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// plan renders the engine's placements, with the finalized choices, as a Plan.
func (e *engine) plan(chs []choice) *Plan {
	pl := &Plan{Kind: "Plan", Region: e.region(), NodeClaims: []NodeClaim{}, ExistingNodes: []NodePlacement{},
		Unschedulable: []Unschedulable{}}
	for _, ch := range chs {
		pl.NodeClaims = append(pl.NodeClaims, e.nodeClaim(ch))
	}
	slices.SortFunc(pl.NodeClaims, func(a, b NodeClaim) int { return strings.Compare(a.Name, b.Name) })
	for _, b := range e.bins {
		if b.kind == binNew || len(b.pods) == 0 {
			continue
		}
		np := NodePlacement{Name: b.name}
		np.Pods, np.BufferPods = podNames(b.pods)
		if b.kind == binNode {
			pl.ExistingNodes = append(pl.ExistingNodes, np)
		} else {
			pl.InFlightClaims = append(pl.InFlightClaims, np)
		}
	}
	slices.SortFunc(pl.ExistingNodes, func(a, b NodePlacement) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(pl.InFlightClaims, func(a, b NodePlacement) int { return strings.Compare(a.Name, b.Name) })
	pl.Unschedulable = e.unschedulable()
	pl.UnmetPreferences = e.unmetPreferences()
	pl.Cost.PricePerHour = roundPrice(totalPrice(chs))
	for _, nc := range pl.NodeClaims {
		pl.Cost.VMPricePerHour += nc.VMPricePerHour
		pl.Cost.DiskPricePerHour += nc.DiskPricePerHour
	}
	pl.Cost.VMPricePerHour, pl.Cost.DiskPricePerHour = roundPrice(pl.Cost.VMPricePerHour), roundPrice(pl.Cost.DiskPricePerHour)
	pl.Stats = Stats{Pods: len(e.in.Pods), NewNodeClaims: len(chs), PodClasses: len(e.classes), Strategy: StrategyNapkit}
	if e.baseline {
		pl.Stats.Strategy = StrategyFFD
	}
	for _, pi := range e.pods {
		if pi.buffer != "" {
			continue
		}
		if e.binOf(pi) != nil {
			pl.Stats.Placed++
		} else {
			pl.Stats.Unschedulable++
		}
	}
	return pl
}

// roundPrice keeps prices to 1e-9 USD so summation order never shows in the output.
func roundPrice(v float64) float64 {
	const scale = 1e9
	if v < 0 {
		return 0
	}
	return float64(int64(v*scale+0.5)) / scale
}

func (e *engine) region() string {
	for _, p := range e.pools {
		for _, pt := range p.types {
			if r, ok := pt.it.Requirements["topology.kubernetes.io/region"]; ok && r.Len() == 1 {
				return r.Any()
			}
		}
	}
	return ""
}

func podNames(pods []*podInfo) (real, buffer []string) {
	real = []string{}
	for _, pi := range pods {
		if pi.buffer != "" {
			buffer = append(buffer, pi.key)
		} else {
			real = append(real, pi.key)
		}
	}
	slices.Sort(real)
	slices.Sort(buffer)
	return real, buffer
}

func (e *engine) nodeClaim(ch choice) NodeClaim {
	b := ch.b
	p := b.pool
	pt := p.types[ch.t]
	pr := p.pairs[ch.pair]
	off := &pt.it.Offerings[pr.off]
	requests := b.used.clone()
	if pt.ds != nil {
		requests.addScaled(pt.ds.overhead, 1)
	}
	nc := NodeClaim{
		Name: ch.name, NodePool: p.name, InstanceType: pt.name, InstanceTypeOptions: ch.options,
		Zone: pr.zone, CapacityType: pr.capType, PricePerHour: roundPrice(pr.price),
		VMPricePerHour: roundPrice(pr.price - off.DiskPrice), DiskPricePerHour: roundPrice(off.DiskPrice),
		Capacity: pt.it.Capacity.DeepCopy(), Allocatable: pt.it.Allocatable().DeepCopy(),
		Requests: e.rt.toList(requests), Labels: e.claimLabels(b, pt, off.Requirements.Labels()),
		Taints: slices.Clone(p.taints), StartupTaints: slices.Clone(p.startupTaints), MinValuesRelaxed: ch.relaxed,
	}
	if nc.Taints == nil {
		nc.Taints = []corev1.Taint{}
	}
	nc.Pods, nc.BufferPods = podNames(b.pods)
	return nc
}

// claimLabels are the labels the node will carry: the instance type's and offering's single-valued
// labels, the pool's labels and single-valued requirements, and what pods pinned on the claim.
func (e *engine) claimLabels(b *bin, pt *ptype, offering map[string]string) map[string]string {
	labels := pt.it.Requirements.Labels()
	for _, m := range []map[string]string{offering, b.pool.custom.Labels(), b.pool.labels, b.creqs.Labels()} {
		for k, v := range m {
			labels[k] = v
		}
	}
	return labels
}

func (e *engine) unmetPreferences() []UnmetPreference {
	var out []UnmetPreference
	for _, pi := range e.pods {
		if e.binOf(pi) == nil || pi.buffer != "" {
			continue
		}
		for _, u := range e.view(pi.class).variants[e.placed[pi.idx].variant].unmet {
			out = append(out, UnmetPreference{Pod: pi.key, Preference: u})
		}
	}
	slices.SortFunc(out, func(a, b UnmetPreference) int {
		return cmp.Or(strings.Compare(a.Pod, b.Pod), strings.Compare(a.Preference, b.Preference))
	})
	return out
}

func (e *engine) unschedulable() []Unschedulable {
	out := []Unschedulable{}
	reasons := map[*podClass]reason{}
	for _, pi := range e.pods {
		if e.binOf(pi) != nil {
			continue
		}
		r, ok := reasons[pi.class]
		if !ok {
			r = e.explain(pi.class)
			reasons[pi.class] = r
		}
		out = append(out, Unschedulable{Pod: pi.key, Code: r.code, Reason: r.msg, CapacityBuffer: pi.buffer})
	}
	slices.SortFunc(out, func(a, b Unschedulable) int { return strings.Compare(a.Pod, b.Pod) })
	return out
}

// placementOrder lists the placed real pods by the placement clock: the order the run placed
// them, a pod moved by the improvement phase at its last placement.
func (e *engine) placementOrder() []string {
	placed := make([]*podInfo, 0, len(e.pods))
	for _, pi := range e.pods {
		if e.binOf(pi) != nil && pi.buffer == "" {
			placed = append(placed, pi)
		}
	}
	slices.SortFunc(placed, func(a, b *podInfo) int { return cmp.Compare(e.placed[a.idx].at, e.placed[b.idx].at) })
	out := make([]string, len(placed))
	for i, pi := range placed {
		out[i] = pi.key
	}
	return out
}
