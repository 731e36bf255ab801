package provisioner

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sig writes a canonical text form of everything in a pod that affects where it may run, so pods
// with equal signatures are interchangeable for the solver. Maps are written in key order and
// pointers by value, so equal specs give equal text.
type sig struct{ strings.Builder }

// str writes a length-prefixed string, which no content can forge.
func (s *sig) str(v string) {
	s.WriteString(strconv.Itoa(len(v)))
	s.WriteByte(':')
	s.WriteString(v)
}

func (s *sig) int(v int64) {
	s.WriteString(strconv.FormatInt(v, 10))
	s.WriteByte(' ')
}

func (s *sig) tag(t string) { s.WriteString(t) }

func (s *sig) strMap(m map[string]string) {
	s.tag("{")
	for _, k := range sortedKeys(m) {
		s.str(k)
		s.str(m[k])
	}
	s.tag("}")
}

func (s *sig) strs(v []string) {
	s.tag("[")
	for _, x := range v {
		s.str(x)
	}
	s.tag("]")
}

func (s *sig) labelSelector(ls *metav1.LabelSelector) {
	if ls == nil {
		s.tag("nil")
		return
	}
	s.strMap(ls.MatchLabels)
	for _, e := range ls.MatchExpressions {
		s.str(e.Key)
		s.str(string(e.Operator))
		s.strs(e.Values)
	}
	s.tag(";")
}

func (s *sig) nodeTerm(t corev1.NodeSelectorTerm) {
	s.tag("(")
	for _, r := range t.MatchExpressions {
		s.str(r.Key)
		s.str(string(r.Operator))
		s.strs(r.Values)
	}
	s.tag("|")
	for _, r := range t.MatchFields {
		s.str(r.Key)
		s.str(string(r.Operator))
		s.strs(r.Values)
	}
	s.tag(")")
}

func (s *sig) podTerm(t *corev1.PodAffinityTerm) {
	s.labelSelector(t.LabelSelector)
	s.strs(t.Namespaces)
	s.str(t.TopologyKey)
	s.labelSelector(t.NamespaceSelector)
	s.strs(t.MatchLabelKeys)
	s.strs(t.MismatchLabelKeys)
}

func (s *sig) affinity(a *corev1.Affinity) {
	if a == nil {
		s.tag("A-")
		return
	}
	if na := a.NodeAffinity; na != nil {
		s.tag("NA")
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			s.tag("R")
			for _, t := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
				s.nodeTerm(t)
			}
		}
		for _, p := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			s.int(int64(p.Weight))
			s.nodeTerm(p.Preference)
		}
	}
	s.podAffinity("PA", a.PodAffinity)
	if aa := a.PodAntiAffinity; aa != nil {
		s.podTerms("PAA", aa.RequiredDuringSchedulingIgnoredDuringExecution, aa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
}

func (s *sig) podAffinity(tag string, pa *corev1.PodAffinity) {
	if pa != nil {
		s.podTerms(tag, pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
}

func (s *sig) podTerms(tag string, req []corev1.PodAffinityTerm, pref []corev1.WeightedPodAffinityTerm) {
	s.tag(tag)
	for i := range req {
		s.podTerm(&req[i])
	}
	s.tag("~")
	for i := range pref {
		s.int(int64(pref[i].Weight))
		s.podTerm(&pref[i].PodAffinityTerm)
	}
}

func (s *sig) spread(cs []corev1.TopologySpreadConstraint) {
	for i := range cs {
		c := &cs[i]
		s.int(int64(c.MaxSkew))
		s.str(c.TopologyKey)
		s.str(string(c.WhenUnsatisfiable))
		s.labelSelector(c.LabelSelector)
		if c.MinDomains != nil {
			s.int(int64(*c.MinDomains))
		}
		if c.NodeAffinityPolicy != nil {
			s.str(string(*c.NodeAffinityPolicy))
		}
		s.tag("/")
		if c.NodeTaintsPolicy != nil {
			s.str(string(*c.NodeTaintsPolicy))
		}
		s.strs(c.MatchLabelKeys)
	}
}

func tolerationsCanon(tols []corev1.Toleration) string {
	if len(tols) == 0 {
		return ""
	}
	parts := make([]string, len(tols))
	for i, t := range tols {
		secs := ""
		if t.TolerationSeconds != nil {
			secs = strconv.FormatInt(*t.TolerationSeconds, 10)
		}
		parts[i] = strings.Join([]string{t.Key, string(t.Operator), t.Value, string(t.Effect), secs}, "\x1f")
	}
	slices.Sort(parts)
	return strings.Join(parts, "\x1e")
}

func (s *sig) requests(m map[corev1.ResourceName]int64) {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, string(n))
	}
	slices.Sort(names)
	for _, n := range names {
		s.str(n)
		s.int(m[corev1.ResourceName(n)])
	}
}
