package controller

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// conflicts reports whether a pod bound on the target node and pod exclude each other by a required
// pod anti-affinity term (either pod's), so kube-scheduler will not put pod there whatever room is
// left.
//
// Why: in a burst kube-scheduler binds replicas of a one-per-host Deployment to whichever new
// nodes come first, so the replica a plan put on node A often finds a sibling bound there. Held
// until the grace ran out (20 s after A initialized), such pods were planned again 20-25 s after
// kube-scheduler had already placed the sibling, and their NodeClaims came that much later (every
// 1,000-pod scale run made claims for them ~67 s after its first plan; with this check none did,
// though the scale-up's end did not move measurably: docs/benchmarks.md, thirteenth session).
// An in-flight claim's node holds no pod yet, so it conflicts with nothing; only the pods bound on
// the node count (held pods are not bound), and a term whose namespaces need a namespace
// selector's labels is not decided here (the grace covers it).
func (h *holdPass) conflicts(t heldTarget, pod *corev1.Pod) bool {
	if t.inFlight >= 0 {
		return false
	}
	n := h.in.Nodes[t.node]
	for _, other := range n.Pods {
		if other.Spec.NodeName == "" || other.Status.Phase == corev1.PodSucceeded || other.Status.Phase == corev1.PodFailed {
			continue
		}
		if h.excludes(pod, other, n.Node) || h.excludes(other, pod, n.Node) {
			return true
		}
	}
	return false
}

// excludes reports whether a required anti-affinity term of owner selects other, both on node:
// the node carries the term's topology key, so the two would share its domain.
func (h *holdPass) excludes(owner, other *corev1.Pod, node *corev1.Node) bool {
	a := owner.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return false
	}
	for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if _, ok := node.Labels[term.TopologyKey]; !ok || !termNamespaces(owner, term, other.Namespace) {
			continue
		}
		if h.selector(term.LabelSelector).Matches(labels.Set(other.Labels)) {
			return true
		}
	}
	return false
}

// selector parses sel once per pass: a nil selector selects nothing, and so does one that does
// not parse (the API server refuses those).
func (h *holdPass) selector(sel *metav1.LabelSelector) labels.Selector {
	if parsed, ok := h.selectors[sel]; ok {
		return parsed
	}
	parsed, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		parsed = labels.Nothing()
	}
	h.selectors[sel] = parsed
	return parsed
}

// termNamespaces reports whether a term of owner covers namespace ns: the term's namespaces, the
// owner's own when it names none and has no selector, every namespace for an empty selector. A
// selector with terms needs the namespaces' labels: not covered (nothing is released on a guess).
func termNamespaces(owner *corev1.Pod, term corev1.PodAffinityTerm, ns string) bool {
	if slices.Contains(term.Namespaces, ns) {
		return true
	}
	if sel := term.NamespaceSelector; sel != nil {
		return len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0
	}
	return len(term.Namespaces) == 0 && ns == owner.Namespace
}
