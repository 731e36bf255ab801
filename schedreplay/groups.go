package schedreplay

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/napkit/napkit/api"
)

// group is a set of pods an affinity term or a spread constraint counts: a label selector in some
// namespaces, or (for the system default spread) the pods of one controller.
type group struct {
	match   func(*corev1.Pod) bool
	perNode []int
	// perDomain counts per topology key and domain (see state.domains), kept for the keys asked
	// for so far.
	perDomain map[string][]int
}

// add counts n more pods of the group on node i.
func (g *group) add(st *state, i, n int) {
	g.perNode[i] += n
	for key, counts := range g.perDomain {
		if d := st.domains(key).of[i]; d >= 0 {
			counts[d] += n
		}
	}
}

// domain returns the group's counts per domain of key.
func (g *group) domain(st *state, key string) []int {
	if counts, ok := g.perDomain[key]; ok {
		return counts
	}
	dom := st.domains(key)
	counts := make([]int, dom.n)
	for i, d := range dom.of {
		if d >= 0 {
			counts[d] += g.perNode[i]
		}
	}
	g.perDomain[key] = counts
	return counts
}

// view is a group's counts by one topology key, resolved once per attempt so that the per-node
// loops index slices instead of looking up maps.
type view struct {
	of     []int // node -> domain, -1 when the node lacks the key
	counts []int // per domain; the group's perNode for the hostname
}

func (g *group) view(st *state, key string) view {
	if key == corev1.LabelHostname {
		return view{of: st.domains(key).of, counts: g.perNode}
	}
	return view{of: st.domains(key).of, counts: g.domain(st, key)}
}

// count is the group's pods in node i's domain (ok false when the node lacks the key). For the
// hostname every node is its own domain, so counts is indexed by node.
func (v view) count(i int, host bool) (n int, ok bool) {
	d := v.of[i]
	if d < 0 {
		return 0, false
	}
	if host {
		return v.counts[i], true
	}
	return v.counts[d], true
}

// groupFor returns the group of key, registering it (and counting the pods placed so far) the
// first time.
func (st *state) groupFor(key string, match func(*corev1.Pod) bool) *group {
	if g, ok := st.groups[key]; ok {
		return g
	}
	g := &group{match: match, perNode: make([]int, len(st.nodes)), perDomain: map[string][]int{}}
	for i, pods := range st.pods {
		for _, pod := range pods {
			if match(pod) {
				g.perNode[i]++
			}
		}
	}
	st.groups[key] = g
	return g
}

// selectorGroup is the group of pods in namespaces that sel selects.
func (st *state) selectorGroup(pod *corev1.Pod, field string, sel *metav1.LabelSelector, namespaces []string) (*group, error) {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, api.Invalid(ErrInvalidInput, podObject(pod), field, sel, "unparsable label selector: %w", err)
	}
	if len(namespaces) == 0 {
		namespaces = []string{pod.Namespace}
	}
	namespaces = slices.Sorted(slices.Values(namespaces))
	key := "sel|" + strings.Join(namespaces, ",") + "|" + s.String()
	return st.groupFor(key, func(p *corev1.Pod) bool {
		return slices.Contains(namespaces, p.Namespace) && s.Matches(labels.Set(p.Labels))
	}), nil
}

// ownerGroup is the group of the pods of pod's controller (the system default spread's
// selector is its ReplicaSet's or StatefulSet's, which selects those pods), or nil.
func (st *state) ownerGroup(pod *corev1.Pod) *group {
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil {
		return nil
	}
	uid := ref.UID
	return st.groupFor("owner|"+string(uid), func(p *corev1.Pod) bool {
		r := metav1.GetControllerOfNoCopy(p) // no copy: the match runs for every pod placed
		return r != nil && r.UID == uid
	})
}

// holder counts, per domain of key, the placed pods whose required anti-affinity term selects
// the group.
type holder struct {
	group *group
	key   string
	count []int // per domain of key
}

// term is one required (anti-)affinity term: the pods it selects and its topology key.
type term struct {
	group *group
	key   string
}

// termView is a term with its counts resolved for one attempt.
type termView struct {
	view
	host bool
}

func (t term) view(st *state) termView {
	return termView{view: t.group.view(st, t.key), host: t.key == corev1.LabelHostname}
}

func (st *state) holder(t term) *holder {
	if h, ok := st.holders[t]; ok {
		return h
	}
	h := &holder{group: t.group, key: t.key, count: make([]int, st.domains(t.key).n)}
	st.holders[t] = h
	return h
}

// antiTerms are pod's required anti-affinity terms.
func (st *state) antiTerms(pod *corev1.Pod) ([]term, error) {
	a := pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return nil, nil
	}
	return st.terms(pod, "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution",
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
}

// affinityTerms are pod's required affinity terms.
func (st *state) affinityTerms(pod *corev1.Pod) ([]term, error) {
	a := pod.Spec.Affinity
	if a == nil || a.PodAffinity == nil {
		return nil, nil
	}
	return st.terms(pod, "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution",
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
}

func (st *state) terms(pod *corev1.Pod, field string, in []corev1.PodAffinityTerm) ([]term, error) {
	out := make([]term, 0, len(in))
	for i, t := range in {
		g, err := st.selectorGroup(pod, field+"["+strconv.Itoa(i)+"].labelSelector", t.LabelSelector, t.Namespaces)
		if err != nil {
			return nil, err
		}
		out = append(out, term{group: g, key: t.TopologyKey})
	}
	return out, nil
}
