package provisioner

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/requirements"
)

// pair is one launchable (instance type, offering) of a pool: the unit the hot path's bitsets
// range over. Only available offerings that meet the pool's requirements become pairs.
type pair struct {
	t       int32 // index into pool.types
	off     int32 // index into the instance type's Offerings
	price   float64
	zone    string
	capType string
}

// ptype is an instance type as one pool sees it.
type ptype struct {
	idx      int
	it       *instancetype.InstanceType
	name     string
	rawAlloc resVec // allocatable
	alloc    resVec // allocatable minus the DaemonSet pods that would run on it in this pool
	ds       *dsGroup
	capacity resVec  // capacity, in the resource table
	limitCap []int64 // capacity per pool limit entry
	pair0    int     // its pairs are pool.pairs[pair0 : pair0+npair], cheapest first
	npair    int
	minPrice float64
}

// pairKey describes one label key over a pool's pairs: each pair's node-side requirement (shared
// pointers deduplicated), so a pod requirement is evaluated once per distinct value set.
type pairKey struct {
	nodeReqs []*requirements.Requirement // nil means the pair does not define the key
	of       []int32
	multi    bool // some pair allows several values (e.g. kubernetes.azure.com/mode In [system user])
	values   []string
	domMasks map[string]bitset
}

// pairReq is the requirement an offering (or else its instance type) sets on key; nil if neither
// defines it.
func pairReq(it *instancetype.InstanceType, o *instancetype.Offering, key string) *requirements.Requirement {
	if r, ok := o.Requirements[key]; ok {
		return r
	}
	if r, ok := it.Requirements[key]; ok {
		return r
	}
	return nil
}

// definedKeys returns every key any instance type or offering of the list defines: the keys the
// pool's pairs answer for themselves. Other keys are the pool's own (custom) keys.
func definedKeys(types []*instancetype.InstanceType) map[string]bool {
	keys := map[string]bool{}
	for _, it := range types {
		if it == nil {
			continue
		}
		for k := range it.Requirements {
			keys[k] = true
		}
		for i := range it.Offerings {
			for k := range it.Offerings[i].Requirements {
				keys[k] = true
			}
		}
	}
	return keys
}

// nodeRequirementMeets evaluates a requirement against a pair's node-side requirement for the key.
func nodeRequirementMeets(node, r *requirements.Requirement) bool {
	if node == nil {
		return r.AllowsAbsent()
	}
	return node.Intersects(r)
}

// buildPairs keeps the available offerings that meet the pool's requirements on pair-defined keys
// and orders the types by their cheapest such offering, then name.
func (p *pool) buildPairs(types []*instancetype.InstanceType, filter []keyReq, rt *resTable) {
	type cand struct {
		it   *instancetype.InstanceType
		offs []int32
		min  float64
	}
	var cands []cand
	for _, it := range types {
		if it == nil {
			continue
		}
		c := cand{it: it, min: math.Inf(1)}
		for oi := range it.Offerings {
			o := &it.Offerings[oi]
			if !o.Available || !offeringMeets(it, o, filter) {
				continue
			}
			c.offs = append(c.offs, int32(oi))
			c.min = min(c.min, o.Price)
		}
		if len(c.offs) > 0 {
			cands = append(cands, c)
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.min, b.min), cmp.Compare(a.it.Name, b.it.Name))
	})
	for ti, c := range cands {
		pt := &ptype{idx: ti, it: c.it, name: c.it.Name, pair0: len(p.pairs), npair: len(c.offs), minPrice: c.min}
		pt.rawAlloc = rt.fromList(c.it.Allocatable())
		pt.alloc = pt.rawAlloc
		pt.capacity = rt.fromList(c.it.Capacity)
		for _, oi := range c.offs {
			o := &c.it.Offerings[oi]
			p.pairs = append(p.pairs, pair{t: int32(ti), off: oi, price: o.Price, zone: o.Zone, capType: o.CapacityType})
		}
		p.types = append(p.types, pt)
	}
}

func offeringMeets(it *instancetype.InstanceType, o *instancetype.Offering, filter []keyReq) bool {
	for _, kr := range filter {
		if !nodeRequirementMeets(pairReq(it, o, kr.key), kr.r) {
			return false
		}
	}
	return true
}

// pairKey returns (building once) the per-pair view of key.
func (p *pool) pairKey(key string) *pairKey {
	if pk, ok := p.keys[key]; ok {
		return pk
	}
	pk := &pairKey{of: make([]int32, len(p.pairs)), domMasks: map[string]bitset{}}
	index := map[*requirements.Requirement]int32{}
	seen := map[string]bool{}
	for i, pr := range p.pairs {
		it := p.types[pr.t].it
		r := pairReq(it, &it.Offerings[pr.off], key)
		at, ok := index[r]
		if !ok {
			at = int32(len(pk.nodeReqs))
			index[r] = at
			pk.nodeReqs = append(pk.nodeReqs, r)
			if r != nil && r.Operator() == corev1.NodeSelectorOpIn {
				pk.multi = pk.multi || r.Len() > 1
				for _, v := range r.Values() {
					if !seen[v] {
						seen[v] = true
						pk.values = append(pk.values, v)
					}
				}
			}
		}
		pk.of[i] = at
	}
	slices.Sort(pk.values)
	p.keys[key] = pk
	return pk
}

// allowed returns the pairs whose value for key meets r.
func (p *pool) allowed(key string, r *requirements.Requirement) bitset {
	pk := p.pairKey(key)
	ok := make([]bool, len(pk.nodeReqs))
	for i, nr := range pk.nodeReqs {
		ok[i] = nodeRequirementMeets(nr, r)
	}
	out := newBitset(len(p.pairs))
	for i, at := range pk.of {
		if ok[at] {
			out.set(i)
		}
	}
	return out
}

// domainMask returns the pairs that can carry value for key (a topology domain).
func (p *pool) domainMask(key, value string) bitset {
	pk := p.pairKey(key)
	if m, ok := pk.domMasks[value]; ok {
		return m
	}
	m := p.allowed(key, requirements.NewRequirement(key, corev1.NodeSelectorOpIn, value))
	pk.domMasks[value] = m
	return m
}

// typeIn reports whether the mask holds any pair of type t.
func (p *pool) typeIn(mask bitset, t int) bool {
	pt := p.types[t]
	if mask == nil {
		return true
	}
	return mask.anyIn(pt.pair0, pt.pair0+pt.npair)
}

// cheapestPair returns the cheapest pair of type t in mask (pairs are sorted cheapest first within a
// type), or -1.
func (p *pool) cheapestPair(mask bitset, t int) int {
	pt := p.types[t]
	for i := pt.pair0; i < pt.pair0+pt.npair; i++ {
		if mask == nil || mask.has(i) {
			return i
		}
	}
	return -1
}

// validateNodePool checks what planning depends on and returns the pool's requirements.
func validateNodePool(np *api.NodePool, index int) (requirements.Requirements, error) {
	object := fmt.Sprintf("NodePool %s", np.Name)
	if np.Name == "" {
		return nil, inputErr(fmt.Sprintf("NodePool #%d", index), "metadata.name", "must be set")
	}
	for i, r := range np.Spec.Template.Spec.Requirements {
		path := fmt.Sprintf("spec.template.spec.requirements[%d]", i)
		if err := api.ValidateRequirement(path, r); err != nil {
			return nil, api.Invalid(ErrInvalidInput, object, path, nil, "%w", err)
		}
	}
	for name, q := range np.Spec.Limits {
		if q.Sign() < 0 {
			return nil, badValue(object, "spec.limits."+string(name), q.String(), "must not be negative")
		}
	}
	return merged(requirements.FromAPI(np.Spec.Template.Spec.Requirements),
		requirements.FromLabels(np.Spec.Template.ObjectMeta.Labels)), nil
}
