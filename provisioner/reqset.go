package provisioner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/requirements"
)

// keyReq is one requirement of a compiled set: the normalised key and the algebra value.
type keyReq struct {
	key string
	r   *requirements.Requirement
}

// reqSet is an interned, immutable set of node requirements (one per key, sorted by key). Pods with
// the same node constraints share one, so its compatibility with each NodePool and node is computed
// once.
type reqSet struct {
	id    int
	reqs  []keyReq
	canon string
}

func (s *reqSet) empty() bool { return len(s.reqs) == 0 }

// String renders the set the way explanations quote it.
func (s *reqSet) String() string {
	parts := make([]string, len(s.reqs))
	for i, kr := range s.reqs {
		parts[i] = kr.r.String()
	}
	return strings.Join(parts, ", ")
}

// matchesLabels evaluates the set on a node's labels, as kube-scheduler does.
func (s *reqSet) matchesLabels(labels map[string]string) bool {
	return s.firstMiss(labels) < 0
}

// firstMiss returns the index of the first requirement the labels do not meet, or -1.
func (s *reqSet) firstMiss(labels map[string]string) int {
	for i, kr := range s.reqs {
		if !labelMeets(labels, kr) {
			return i
		}
	}
	return -1
}

func labelMeets(labels map[string]string, kr keyReq) bool {
	v, ok := labels[kr.key]
	if !ok {
		return kr.r.AllowsAbsent()
	}
	return kr.r.Has(v)
}

// reqSets interns requirement sets.
type reqSets struct {
	byCanon map[string]*reqSet
	list    []*reqSet
}

func newReqSets() *reqSets { return &reqSets{byCanon: map[string]*reqSet{}} }

func (s *reqSets) intern(rs requirements.Requirements) *reqSet {
	keys := rs.Keys()
	var b strings.Builder
	reqs := make([]keyReq, 0, len(keys))
	for _, k := range keys {
		r := rs[k]
		reqs = append(reqs, keyReq{key: k, r: r})
		writeRequirement(&b, r)
	}
	canon := b.String()
	if got, ok := s.byCanon[canon]; ok {
		return got
	}
	set := &reqSet{id: len(s.list), reqs: reqs, canon: canon}
	s.byCanon[canon] = set
	s.list = append(s.list, set)
	return set
}

// writeRequirement writes a canonical, complete form (requirements.String abbreviates long lists).
func writeRequirement(b *strings.Builder, r *requirements.Requirement) {
	for _, e := range r.ToAPI() {
		b.WriteString(e.Key)
		b.WriteByte(' ')
		b.WriteString(string(e.Operator))
		for _, v := range e.Values {
			b.WriteByte(' ')
			b.WriteString(strconv.Quote(v))
		}
		b.WriteByte(';')
	}
}

// validOperators are the operators a pod's node selector terms may use.
var validOperators = []corev1.NodeSelectorOperator{
	corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists,
	corev1.NodeSelectorOpDoesNotExist, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt,
}

// checkSelectorRequirement validates one node selector requirement as the API server would.
func checkSelectorRequirement(r corev1.NodeSelectorRequirement) error {
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			return fmt.Errorf("key %q: operator %s needs at least one value", r.Key, r.Operator)
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) != 0 {
			return fmt.Errorf("key %q: operator %s takes no values", r.Key, r.Operator)
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(r.Values) != 1 {
			return fmt.Errorf("key %q: operator %s needs exactly one value", r.Key, r.Operator)
		}
		if _, err := strconv.ParseInt(r.Values[0], 10, 64); err != nil {
			return fmt.Errorf("key %q: operator %s needs an integer, got %q", r.Key, r.Operator, r.Values[0])
		}
	default:
		return fmt.Errorf("key %q: unknown operator %q (want one of %v)", r.Key, r.Operator, validOperators)
	}
	if strings.TrimSpace(r.Key) == "" {
		return fmt.Errorf("empty key")
	}
	return nil
}

// termRequirements converts one node selector term, validating it.
func termRequirements(t corev1.NodeSelectorTerm) (requirements.Requirements, error) {
	for _, r := range t.MatchExpressions {
		if err := checkSelectorRequirement(r); err != nil {
			return nil, err
		}
	}
	return requirements.FromNodeSelector(t.MatchExpressions), nil
}

// merged returns a ∧ b as a new Requirements.
func merged(parts ...requirements.Requirements) requirements.Requirements {
	out := requirements.Requirements{}
	for _, p := range parts {
		for _, k := range p.Keys() {
			out.Add(p[k])
		}
	}
	return out
}

// normalizedLabels returns labels with deprecated keys replaced by their stable keys (the stable
// spelling wins when both are present).
func normalizedLabels(labels map[string]string) map[string]string {
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		if nk := api.NormalizeLabelKey(k); nk != k {
			if _, ok := labels[nk]; ok {
				continue
			}
			k = nk
		}
		out[k] = v
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
