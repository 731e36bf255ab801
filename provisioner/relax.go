package provisioner

import "github.com/napkit/napkit/requirements"

// variant is one step of a class's relaxation: the node requirements and topology groups the
// placement must honour, and the preferences it has given up.
type variant struct {
	reqset *reqSet
	alt    int
	groups []int32 // owned groups checked (required ones first)
	tolPNS bool    // tolerate PreferNoSchedule taints
	unmet  []string
}

// relaxState counts how far each relaxation step has gone.
type relaxState struct {
	alt, aff, anti, node, soft int
	pns                        bool
}

// buildVariants lists a class's variants in Karpenter's relaxation order (karpenter-core §1.6):
// drop the first required node term while more than one remains, then preferred pod affinity,
// preferred pod anti-affinity and preferred node affinity terms (heaviest first), then ScheduleAnyway
// spreads, and finally tolerate PreferNoSchedule taints. With PreferenceIgnore every preference is
// dropped up front and only the required terms vary.
func (e *engine) buildVariants(c *podClass) []*variant {
	t := &c.terms
	ignore := e.opts.PreferencePolicy == PreferenceIgnore
	if ignore {
		t.prefAff, t.prefAnti, t.prefNode, t.soft = nil, nil, nil, nil
	}
	s := relaxState{pns: ignore || !e.anyPreferNoSchedule}
	var out []*variant
	for {
		out = append(out, e.variantFor(c, s))
		if !e.relax(c, &s) {
			return out
		}
	}
}

func (e *engine) relax(c *podClass, s *relaxState) bool {
	t := &c.terms
	switch {
	case s.alt < len(t.alts)-1:
		s.alt++
	case s.aff < len(t.prefAff):
		s.aff++
	case s.anti < len(t.prefAnti):
		s.anti++
	case s.node < len(t.prefNode):
		s.node++
	case s.soft < len(t.soft):
		s.soft++
	case !s.pns:
		s.pns = true
	default:
		return false
	}
	return true
}

func (e *engine) variantFor(c *podClass, s relaxState) *variant {
	t := &c.terms
	v := &variant{alt: s.alt, tolPNS: s.pns}
	parts := []requirements.Requirements{t.alts[s.alt], t.volume}
	if s.node < len(t.prefNode) {
		parts = append(parts, t.prefNode[s.node].v)
	}
	v.reqset = e.sets.intern(merged(parts...))
	v.groups = append(v.groups, t.required...)
	for _, list := range [][]weighted[int32]{t.prefAff[s.aff:], t.prefAnti[s.anti:], t.soft[s.soft:]} {
		for _, w := range list {
			v.groups = append(v.groups, w.v)
		}
	}
	for _, list := range [][]weighted[int32]{t.prefAff[:s.aff], t.prefAnti[:s.anti], t.soft[:s.soft]} {
		for _, w := range list {
			v.unmet = append(v.unmet, w.desc)
		}
	}
	for _, w := range t.prefNode[:s.node] {
		v.unmet = append(v.unmet, w.desc)
	}
	// PreferNoSchedule starts tolerated unless some pool uses it and preferences count; reaching
	// it by relaxation gives up a preference.
	if s.pns && e.anyPreferNoSchedule && e.opts.PreferencePolicy != PreferenceIgnore {
		v.unmet = append(v.unmet, "PreferNoSchedule taints")
	}
	return v
}

// isFree reports whether a class has nothing but node requirements: no host ports, no topology it
// owns or must stay clear of, one variant. Such classes are packed in bulk, bin by bin.
func isFree(c *podClass, variants []*variant, inverse []int32) bool {
	if c.pre != "" || len(variants) != 1 || len(c.ports) > 0 || len(inverse) > 0 {
		return false
	}
	return len(variants[0].groups) == 0
}
