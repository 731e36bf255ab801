package provisioner

import (
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/requirements"
)

// compileClass turns a class's representative pod into requests, node constraints and topology
// groups. Problems that make the pod impossible to plan are recorded in c.pre; malformed specs are
// input errors.
func (e *engine) compileClass(c *podClass) error {
	pod := c.rep
	object := "Pod " + c.pods[0].key
	c.req = e.rt.fromMap(c.reqMap)
	c.tols = pod.Spec.Tolerations
	c.tolKey = tolerationsCanon(c.tols)
	c.ports = podHostPorts(&pod.Spec)
	c.matches = map[int32]bool{}
	if len(pod.Spec.SchedulingGates) > 0 {
		c.pre, c.preMsg = CodeSchedulingGated, fmt.Sprintf("pod has scheduling gate %q", pod.Spec.SchedulingGates[0].Name)
		return nil
	}
	alts, err := e.nodeAlternatives(&pod.Spec, object, "spec")
	var ie *api.FieldError
	if errors.As(err, &ie) && errors.Is(err, errUnsupported) {
		c.pre, c.preMsg = CodeUnsupported, "node affinity term uses matchFields ("+ie.Field+"), which node provisioning cannot plan for"
		return nil
	}
	if err != nil {
		return err
	}
	if len(alts) == 0 {
		c.pre, c.preMsg = CodeRequirements, "every required node affinity term is empty, and an empty term matches no node"
		return nil
	}
	vol, why := e.volumeRequirements(pod)
	if why != "" {
		c.pre, c.preMsg = CodeVolume, why
		return nil
	}
	c.terms.alts, c.terms.volume = alts, vol
	for _, a := range alts {
		c.terms.strict = append(c.terms.strict, e.sets.intern(a))
	}
	e.compilePreferredNode(c)
	return e.compileTopology(c, object)
}

func (e *engine) compilePreferredNode(c *podClass) {
	na := c.rep.Spec.Affinity
	if na == nil || na.NodeAffinity == nil {
		return
	}
	for i, p := range na.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		if len(p.Preference.MatchFields) > 0 || len(p.Preference.MatchExpressions) == 0 {
			continue
		}
		rs, err := termRequirements(p.Preference)
		if err != nil {
			continue // a preference that cannot be read is simply not honoured
		}
		c.terms.prefNode = append(c.terms.prefNode, weighted[requirements.Requirements]{
			weight: p.Weight, v: rs, desc: fmt.Sprintf("preferred node affinity #%d (weight %d): %s", i, p.Weight, rs.String())})
	}
	slices.SortStableFunc(c.terms.prefNode, func(a, b weighted[requirements.Requirements]) int { return int(b.weight - a.weight) })
}

func (e *engine) compileTopology(c *podClass, object string) error {
	pod := c.rep
	for i := range pod.Spec.TopologySpreadConstraints {
		if err := e.compileSpread(c, object, i); err != nil {
			return err
		}
	}
	a := pod.Spec.Affinity
	if a == nil {
		return nil
	}
	if pa := a.PodAffinity; pa != nil {
		if err := e.compileTerms(c, object, "podAffinity", kindAffinity, pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			return err
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		return e.compileTerms(c, object, "podAntiAffinity", kindAnti, pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	return nil
}

func (e *engine) compileSpread(c *podClass, object string, i int) error {
	tsc := &c.rep.Spec.TopologySpreadConstraints[i]
	field := fmt.Sprintf("spec.topologySpreadConstraints[%d]", i)
	if tsc.MaxSkew < 1 {
		return badValue(object, field+".maxSkew", tsc.MaxSkew, "must be at least 1")
	}
	if tsc.TopologyKey == "" {
		return inputErr(object, field+".topologyKey", "must be set")
	}
	if tsc.WhenUnsatisfiable != corev1.DoNotSchedule && tsc.WhenUnsatisfiable != corev1.ScheduleAnyway {
		return badValue(object, field+".whenUnsatisfiable", tsc.WhenUnsatisfiable, "must be DoNotSchedule or ScheduleAnyway")
	}
	sel, err := compileSelector(selectorSpec{selector: tsc.LabelSelector, matchKeys: tsc.MatchLabelKeys,
		ownerNamespace: c.ns, ownerLabels: c.labels}, e.nsLabels)
	if err != nil {
		return inputErr(object, field, "%v", err)
	}
	spec := groupSpec{kind: kindSpread, key: api.NormalizeLabelKey(tsc.TopologyKey), sel: sel, maxSkew: tsc.MaxSkew,
		required: tsc.WhenUnsatisfiable == corev1.DoNotSchedule}
	if tsc.MinDomains != nil && spec.required {
		spec.minDomains = *tsc.MinDomains
	}
	if tsc.NodeAffinityPolicy == nil || *tsc.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
		spec.filterAlts = c.terms.strict
	}
	if tsc.NodeTaintsPolicy != nil && *tsc.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		spec.filterTols, spec.taints = c.tols, true
	}
	g := e.internGroup(spec)
	if spec.required {
		c.terms.required = append(c.terms.required, g)
	} else {
		c.terms.soft = append(c.terms.soft, weighted[int32]{v: g, desc: "ScheduleAnyway " + e.groups[g].desc})
	}
	return nil
}

func (e *engine) compileTerms(c *podClass, object, name string, kind groupKind, req []corev1.PodAffinityTerm, pref []corev1.WeightedPodAffinityTerm) error {
	for i := range req {
		field := fmt.Sprintf("spec.affinity.%s.requiredDuringSchedulingIgnoredDuringExecution[%d]", name, i)
		g, err := e.termGroup(c, object, field, kind, &req[i], true)
		if err != nil {
			return err
		}
		c.terms.required = append(c.terms.required, g)
	}
	var list []weighted[int32]
	for i := range pref {
		field := fmt.Sprintf("spec.affinity.%s.preferredDuringSchedulingIgnoredDuringExecution[%d]", name, i)
		g, err := e.termGroup(c, object, field, kind, &pref[i].PodAffinityTerm, false)
		if err != nil {
			return err
		}
		list = append(list, weighted[int32]{weight: pref[i].Weight, v: g,
			desc: fmt.Sprintf("preferred %s (weight %d)", e.groups[g].desc, pref[i].Weight)})
	}
	slices.SortStableFunc(list, func(a, b weighted[int32]) int { return int(b.weight - a.weight) })
	if kind == kindAffinity {
		c.terms.prefAff = list
	} else {
		c.terms.prefAnti = list
	}
	return nil
}

func (e *engine) termGroup(c *podClass, object, field string, kind groupKind, t *corev1.PodAffinityTerm, required bool) (int32, error) {
	if t.TopologyKey == "" {
		return 0, inputErr(object, field+".topologyKey", "must be set")
	}
	sel, err := compileSelector(selectorSpec{selector: t.LabelSelector, namespaces: t.Namespaces, nsSelector: t.NamespaceSelector,
		matchKeys: t.MatchLabelKeys, mismatchKeys: t.MismatchLabelKeys, ownerNamespace: c.ns, ownerLabels: c.labels}, e.nsLabels)
	if err != nil {
		return 0, inputErr(object, field, "%v", err)
	}
	return e.internGroup(groupSpec{kind: kind, key: api.NormalizeLabelKey(t.TopologyKey), sel: sel, required: required}), nil
}

// boundAntiGroups interns the required anti-affinity terms of pods already bound or nominated, so
// incoming pods they exclude stay away (inverse anti-affinity). Malformed terms of pods already
// running are skipped: the cluster accepted them, and they must not fail the plan.
func (e *engine) boundAntiGroups(pod *corev1.Pod) []int32 {
	a := pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return nil
	}
	var out []int32
	for i := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		t := &a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i]
		if t.TopologyKey == "" {
			continue
		}
		sel, err := compileSelector(selectorSpec{selector: t.LabelSelector, namespaces: t.Namespaces, nsSelector: t.NamespaceSelector,
			matchKeys: t.MatchLabelKeys, mismatchKeys: t.MismatchLabelKeys, ownerNamespace: pod.Namespace, ownerLabels: pod.Labels}, e.nsLabels)
		if err != nil {
			continue
		}
		out = append(out, e.internGroup(groupSpec{kind: kindAnti, key: api.NormalizeLabelKey(t.TopologyKey), sel: sel, required: true}))
	}
	return out
}

// matchClasses records, for every class and group, whether the group's selector matches the class
// and which required anti-affinity groups the class owns.
func (e *engine) matchClasses() {
	for _, c := range e.classes {
		if c.pre != "" {
			continue
		}
		owned := map[int32]bool{}
		for _, g := range c.terms.required {
			owned[g] = true
		}
		for gi, g := range e.groups {
			id := int32(gi)
			if owned[id] && g.kind == kindAnti {
				if g.hostname {
					c.hOwn = append(c.hOwn, id)
				} else {
					c.zOwn = append(c.zOwn, id)
				}
			}
			if !g.sel.matches(c.ns, c.labels) {
				continue
			}
			c.matches[id] = true
			if g.hostname {
				c.hMatch = append(c.hMatch, id)
			} else {
				c.zMatch = append(c.zMatch, id)
			}
			if g.kind == kindAnti && g.required {
				c.inverse = append(c.inverse, id)
			}
		}
	}
}
