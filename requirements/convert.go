package requirements

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// FromLabels returns "key In [value]" for every label, as an instance type or a node presents them.
// Two spellings of one key (an alias and its stable key) intersect.
func FromLabels(labels map[string]string) Requirements {
	rs := make(Requirements, len(labels))
	for key, value := range labels {
		rs.Add(NewRequirement(key, corev1.NodeSelectorOpIn, value))
	}
	return rs
}

// FromNodeSelector returns the requirements of one node selector term (a pod's required or preferred
// node affinity), all of which must hold.
func FromNodeSelector(reqs []corev1.NodeSelectorRequirement) Requirements {
	rs := make(Requirements, len(reqs))
	for _, req := range reqs {
		rs.Add(NewRequirement(req.Key, req.Operator, req.Values...))
	}
	return rs
}

// FromAPI returns the requirements of a NodePool template or a NodeClaim, minValues included.
func FromAPI(reqs []api.NodeSelectorRequirementWithMinValues) Requirements {
	rs := make(Requirements, len(reqs))
	for _, req := range reqs {
		rs.Add(NewRequirementWithMinValues(req.Key, req.Operator, req.MinValues, req.Values...))
	}
	return rs
}

// ToAPI returns rs as NodeClaim requirements, sorted by key; FromAPI of the result equals rs. The
// result shares nothing with rs.
func (rs Requirements) ToAPI() []api.NodeSelectorRequirementWithMinValues {
	out := make([]api.NodeSelectorRequirementWithMinValues, 0, len(rs))
	for _, key := range rs.Keys() {
		out = rs[key].appendAPI(out)
	}
	return out
}

// ToAPI returns r as API requirements: one entry, or for a bounded complement one per part (NotIn,
// Gte, Lte), since one API requirement holds one operator. Each entry carries r's MinValues.
func (r *Requirement) ToAPI() []api.NodeSelectorRequirementWithMinValues {
	return r.appendAPI(nil)
}

func (r *Requirement) appendAPI(out []api.NodeSelectorRequirementWithMinValues) []api.NodeSelectorRequirementWithMinValues {
	entry := func(op corev1.NodeSelectorOperator, values []string) api.NodeSelectorRequirementWithMinValues {
		return api.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: op, Values: values, MinValues: clonePtr(r.MinValues)}
	}
	if !r.complement {
		if len(r.values) == 0 {
			return append(out, entry(corev1.NodeSelectorOpDoesNotExist, nil))
		}
		return append(out, entry(corev1.NodeSelectorOpIn, slices.Clone(r.values)))
	}
	if len(r.values) == 0 && r.gte == nil && r.lte == nil {
		return append(out, entry(corev1.NodeSelectorOpExists, nil))
	}
	if len(r.values) > 0 {
		out = append(out, entry(corev1.NodeSelectorOpNotIn, slices.Clone(r.values)))
	}
	if r.gte != nil {
		out = append(out, entry(Gte, []string{strconv.FormatInt(*r.gte, 10)}))
	}
	if r.lte != nil {
		out = append(out, entry(Lte, []string{strconv.FormatInt(*r.lte, 10)}))
	}
	return out
}
