package controller

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/napkit/napkit/api"
)

// spreadExcess picks the held pods that kube-scheduler's DoNotSchedule topology spread will never
// let onto the node the plan put them on, so the hold releases them at once (releaseSpread)
// instead of after the grace.
//
// Why: in a burst kube-scheduler binds some replicas of a zone-spread Deployment in zones other
// than their plan's (to whichever node comes first, or where room is). The plan was level; with a
// replica moved from zone c to zone a, zone a's held replicas can no longer all go where planned:
// kube-scheduler refuses one on its node (skew = the zone's count + 1 - the least zone's count >
// maxSkew) however long it waits, and the hold saw room and kept it for the grace (20-30 s), then
// planned it again. Those pods were the tail of the 1,000-pod scale-ups that took ~100 s
// (docs/benchmarks.md, eighteenth session).
//
// The rule, per DoNotSchedule constraint (kube-scheduler's Filter in
// pkg/scheduler/framework/plugins/podtopologyspread/filtering.go): count per domain the pods the
// constraint selects, bound ones where they are and held ones where their plan put them. Every
// pod of a domain can be placed only if the domain's count is at most the least domain's count
// plus maxSkew (each placement needs count + 1 - min <= maxSkew at its time, and the minimum only
// grows), so a domain above that has that many pods too many, and that many of its held pods on
// initialized nodes (kube-scheduler has had them) are released. Domains without a selected pod
// and minDomains are left out, which can only overstate the minimum (fewer releases). Node
// inclusion policies are not applied either: a selected pod bound on a node outside the pod's
// node affinity is counted, where kube-scheduler's default (Honor) leaves it out, so a selector
// shared by workloads of different node affinities could release a pod early (it is planned
// again, not lost).
func (h *holdPass) spreadExcess(where map[string]plannedPod, targets map[string]heldTarget, pending []*corev1.Pod) map[string]bool {
	groups := h.spreadGroups(where, targets, pending)
	if len(groups) == 0 {
		return nil
	}
	for _, pod := range pending {
		if r, ok := where[pod.Namespace+"/"+pod.Name]; ok {
			if t, coming := targets[r.target]; coming {
				h.countHeld(groups, pod, t)
			}
		}
	}
	h.countBound(groups)
	out := map[string]bool{}
	for _, g := range groups {
		g.release(out)
	}
	return out
}

// spreadGroup is one DoNotSchedule constraint as kube-scheduler evaluates it for a pod: the pods
// its selector picks in the pod's namespace, counted per domain of its topology key.
type spreadGroup struct {
	namespace string
	key       string
	selector  labels.Selector
	maxSkew   int
	counts    map[string]int
	// releasable are the held pods with this constraint on an initialized node, by domain.
	releasable map[string][]string
}

// spreadGroups makes a group of each constraint of the held pods kube-scheduler has had (their
// target an initialized node): only those may be released, so only their groups are counted.
func (h *holdPass) spreadGroups(where map[string]plannedPod, targets map[string]heldTarget, pending []*corev1.Pod) map[string]*spreadGroup {
	var groups map[string]*spreadGroup
	for _, pod := range pending {
		r, ok := where[pod.Namespace+"/"+pod.Name]
		if !ok || len(pod.Spec.TopologySpreadConstraints) == 0 {
			continue
		}
		t, coming := targets[r.target]
		if !coming || t.node < 0 || !t.initialized {
			continue
		}
		for _, c := range pod.Spec.TopologySpreadConstraints {
			if c.WhenUnsatisfiable != corev1.DoNotSchedule || c.LabelSelector == nil {
				continue // no filter; without a selector kube-scheduler counts no pod
			}
			g := h.groupOf(&groups, pod, c)
			if g.selector.Empty() {
				continue // kube-scheduler counts no pod for an empty selector either
			}
			if d := h.domainOf(t, c.TopologyKey); d != "" {
				g.releasable[d] = append(g.releasable[d], pod.Namespace+"/"+pod.Name)
			}
		}
	}
	return groups
}

// groupOf returns the group of the pod's constraint c, making it the first time.
func (h *holdPass) groupOf(groups *map[string]*spreadGroup, pod *corev1.Pod, c corev1.TopologySpreadConstraint) *spreadGroup {
	sel := h.spreadSelector(pod, c)
	id := pod.Namespace + "|" + c.TopologyKey + "|" + strconv.Itoa(int(c.MaxSkew)) + "|" + sel.String()
	if *groups == nil {
		*groups = map[string]*spreadGroup{}
	}
	g, ok := (*groups)[id]
	if !ok {
		g = &spreadGroup{namespace: pod.Namespace, key: c.TopologyKey, selector: sel, maxSkew: int(c.MaxSkew),
			counts: map[string]int{}, releasable: map[string][]string{}}
		(*groups)[id] = g
	}
	return g
}

// spreadSelector is the constraint's selector (parsed through the pass's cache, holdPass.selector)
// with its matchLabelKeys' values from the pod, as kube-scheduler merges them.
func (h *holdPass) spreadSelector(pod *corev1.Pod, c corev1.TopologySpreadConstraint) labels.Selector {
	sel := h.selector(c.LabelSelector)
	for _, key := range c.MatchLabelKeys {
		if v, ok := pod.Labels[key]; ok {
			if req, err := labels.NewRequirement(key, selection.Equals, []string{v}); err == nil {
				sel = sel.Add(*req)
			}
		}
	}
	return sel
}

// countHeld counts a held pod where its plan put it, in every group that selects it.
func (h *holdPass) countHeld(groups map[string]*spreadGroup, pod *corev1.Pod, t heldTarget) {
	if pod.DeletionTimestamp != nil {
		return
	}
	for _, g := range groups {
		if g.namespace == pod.Namespace && g.selector.Matches(labels.Set(pod.Labels)) {
			if d := h.domainOf(t, g.key); d != "" {
				g.counts[d]++
			}
		}
	}
}

// countBound counts the pods bound to the existing nodes in every group that selects them; not
// the finished ones, nor the terminating ones (kube-scheduler's countPodsMatchSelector,
// podtopologyspread/common.go, skips those).
func (h *holdPass) countBound(groups map[string]*spreadGroup) {
	for _, n := range h.in.Nodes {
		for _, pod := range n.Pods {
			if pod.Spec.NodeName == "" || pod.DeletionTimestamp != nil ||
				pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
				continue
			}
			for _, g := range groups {
				d, ok := n.Node.Labels[g.key]
				if ok && g.namespace == pod.Namespace && g.selector.Matches(labels.Set(pod.Labels)) {
					g.counts[d]++
				}
			}
		}
	}
}

// release marks, in each domain above the least one plus maxSkew, that many of its releasable
// pods (in name order, so the choice is deterministic).
func (g *spreadGroup) release(out map[string]bool) {
	least := -1
	for _, n := range g.counts {
		if least < 0 || n < least {
			least = n
		}
	}
	for d, n := range g.counts {
		over := n - least - g.maxSkew
		pods := slices.Sorted(slices.Values(g.releasable[d]))
		for i := 0; i < over && i < len(pods); i++ {
			out[pods[i]] = true
		}
	}
}

// domainOf is the target's domain of a topology key: an existing node's label, or an in-flight
// claim's zone, its own name for the hostname (its node is a domain of its own) or its labels;
// "" when unknown.
func (h *holdPass) domainOf(t heldTarget, key string) string {
	if t.node >= 0 {
		return h.in.Nodes[t.node].Node.Labels[key]
	}
	f := h.in.InFlight[t.inFlight]
	switch key {
	case api.LabelZone:
		return f.Zone
	case corev1.LabelHostname:
		return "claim/" + f.Name
	}
	return f.Labels[key]
}
