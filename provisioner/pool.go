package provisioner

import (
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/requirements"
)

// pool is a NodePool compiled for the solve: its launchable pairs, its own label constraints, its
// limits and the caches that make repeated compatibility questions free.
type pool struct {
	idx           int
	name          string
	np            *api.NodePool
	weight        int32
	taints        []corev1.Taint
	startupTaints []corev1.Taint
	labels        map[string]string
	// reqs are the template requirements and labels, plus karpenter.sh/nodepool.
	reqs requirements.Requirements
	// defined are the keys the instance types and offerings define; custom are the pool's
	// requirements on every other key (they become NodeClaim labels).
	defined   map[string]bool
	custom    requirements.Requirements
	types     []*ptype
	pairs     []pair
	keys      map[string]*pairKey
	compats   map[int]*poolCompat
	limits    []limitEntry
	minValues []keyReq // requirements carrying minValues
}

// limitEntry is one spec.limits resource ("nodes" counts nodes).
type limitEntry struct {
	name  corev1.ResourceName
	limit int64
}

const resourceNodes corev1.ResourceName = "nodes"

func newPool(idx int, in NodePoolInput, rt *resTable) (*pool, error) {
	np := in.NodePool
	if np == nil {
		return nil, inputErr(fmt.Sprintf("NodePool #%d", idx), "nodePool", "is nil")
	}
	reqs, err := validateNodePool(np, idx)
	if err != nil {
		return nil, err
	}
	reqs.Add(requirements.NewRequirement(api.LabelNodePool, corev1.NodeSelectorOpIn, np.Name))
	p := &pool{
		idx: idx, name: np.Name, np: np, reqs: reqs,
		taints:        np.Spec.Template.Spec.Taints,
		startupTaints: np.Spec.Template.Spec.StartupTaints,
		labels:        np.Spec.Template.ObjectMeta.Labels,
		defined:       definedKeys(in.InstanceTypes),
		custom:        requirements.Requirements{},
		keys:          map[string]*pairKey{},
		compats:       map[int]*poolCompat{},
	}
	if np.Spec.Weight != nil {
		p.weight = *np.Spec.Weight
	}
	var filter []keyReq
	for _, k := range reqs.Keys() {
		if p.defined[k] {
			filter = append(filter, keyReq{key: k, r: reqs[k]})
		} else {
			p.custom[k] = reqs[k]
		}
		if reqs[k].MinValues != nil && *reqs[k].MinValues > 0 {
			p.minValues = append(p.minValues, keyReq{key: k, r: reqs[k]})
		}
	}
	p.buildPairs(in.InstanceTypes, filter, rt)
	p.buildLimits()
	return p, nil
}

func (p *pool) buildLimits() {
	for _, name := range sortedResourceNames(p.np.Spec.Limits) {
		q := p.np.Spec.Limits[name]
		p.limits = append(p.limits, limitEntry{name: name, limit: quantityValue(name, q)})
	}
	for _, pt := range p.types {
		pt.limitCap = p.limitVector(pt.it.Capacity)
	}
}

// limitVector returns a node's usage of each limit entry: its capacity, and 1 for "nodes".
func (p *pool) limitVector(capacity corev1.ResourceList) []int64 {
	v := make([]int64, len(p.limits))
	for i, l := range p.limits {
		if l.name == resourceNodes {
			v[i] = 1
			continue
		}
		if q, ok := capacity[l.name]; ok {
			v[i] = quantityValue(l.name, q)
		}
	}
	return v
}

// withinLimits reports whether adding add (and removing sub, may be nil) keeps every limit of p.
func (s *state) withinLimits(p *pool, add, sub []int64) bool {
	used := s.poolUsed[p.idx]
	for i, l := range p.limits {
		u := used[i] + add[i]
		if sub != nil {
			u -= sub[i]
		}
		if u > l.limit {
			return false
		}
	}
	return true
}

// charge adds (sign 1) or removes (sign -1) a node's usage of p's limits.
func (s *state) charge(p *pool, add []int64, sign int64) {
	used := s.poolUsed[p.idx]
	for i := range p.limits {
		used[i] += sign * add[i]
	}
}

// orderPools sorts pools by weight (highest first), then name descending, as Karpenter core's
// OrderByWeight (pkg/utils/nodepool/nodepool.go) breaks ties, so equal-weight NodePools are tried in
// the order users moving from Karpenter expect.
func orderPools(pools []*pool) {
	slices.SortStableFunc(pools, func(a, b *pool) int {
		return cmp.Or(cmp.Compare(b.weight, a.weight), cmp.Compare(b.name, a.name))
	})
}

func sortedResourceNames(list corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(list))
	for n := range list {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// hasPreferNoSchedule reports whether the pool taints nodes PreferNoSchedule.
func (p *pool) hasPreferNoSchedule() bool {
	for _, t := range p.taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			return true
		}
	}
	return false
}
