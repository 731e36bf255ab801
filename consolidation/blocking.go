package consolidation

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/napkit/napkit/api"
)

// This file says why graceful methods (emptiness, consolidation) may not touch a node. It follows
// Karpenter's StateNode.ValidateNodeDisruptable / ValidatePodsDisruptable and pkg/utils/pdb:
//
//   - karpenter.sh/do-not-disrupt on a pod counts for every active pod, DaemonSet-owned and mirror
//     pods included: Karpenter deliberately lets those block with the annotation, because they are
//     the only way a node-bound workload can say "not now".
//   - PodDisruptionBudgets count only for pods Karpenter would evict: active, not mirror pods (the
//     API server cannot evict those) and not tolerating karpenter.sh/disrupted:NoSchedule (they are
//     not drained). DaemonSet pods are evicted when a node drains, so their PDBs do count.

// pdbEntry is one PodDisruptionBudget with its selector parsed once.
type pdbEntry struct {
	pdb      *policyv1.PodDisruptionBudget
	selector labels.Selector
	// invalid is the selector's parse error; such a PDB matches every pod of its namespace, so a
	// broken snapshot blocks disruption instead of silently allowing it.
	invalid error
	// allowed is how many evictions the PDB allows now (see PDBAllowance); newPDBIndex starts it at
	// the status's figure and computeAllowances settles it.
	allowed int
}

// pdbIndex holds the PDBs by namespace, each list sorted by name. Build it once per pass.
type pdbIndex map[string][]pdbEntry

// newPDBIndex parses every PDB's selector. Nil entries are skipped (collect rejects them).
func newPDBIndex(pdbs []*policyv1.PodDisruptionBudget) pdbIndex {
	ix := make(pdbIndex)
	for _, pdb := range pdbs {
		if pdb == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		ix[pdb.Namespace] = append(ix[pdb.Namespace], pdbEntry{pdb: pdb, selector: sel, invalid: err,
			allowed: max(int(pdb.Status.DisruptionsAllowed), 0)})
	}
	for _, list := range ix {
		slices.SortFunc(list, func(a, b pdbEntry) int { return cmp.Compare(a.pdb.Name, b.pdb.Name) })
	}
	return ix
}

// computeAllowances settles every PDB's allowance over the snapshot's pods (bound and pending), as
// PDBAllowance does, less what the drains under way still have to evict (reserveDrains). A PDB
// with an invalid selector keeps allowing nothing new: it blocks anyway.
func (ix pdbIndex) computeAllowances(in *Input) error {
	matched := map[*policyv1.PodDisruptionBudget][]*corev1.Pod{}
	add := func(pod *corev1.Pod) {
		for _, e := range ix[pod.Namespace] {
			if e.invalid == nil && e.selector.Matches(labels.Set(pod.Labels)) {
				matched[e.pdb] = append(matched[e.pdb], pod)
			}
		}
	}
	for i := range in.Nodes {
		for _, pod := range in.Nodes[i].Pods {
			add(pod)
		}
	}
	for _, pod := range in.PendingPods {
		if pod != nil {
			add(pod)
		}
	}
	for _, list := range ix {
		for i := range list {
			if list[i].invalid != nil {
				continue
			}
			allowed, _, err := pdbAllowance(list[i].pdb, matched[list[i].pdb], in.Now)
			if err != nil {
				return err
			}
			list[i].allowed = allowed
		}
	}
	ix.reserveDrains(in)
	return nil
}

// matching returns the PDBs that guard pod.
func (ix pdbIndex) matching(pod *corev1.Pod) []pdbEntry {
	var out []pdbEntry
	for _, e := range ix[pod.Namespace] {
		if e.invalid != nil || e.selector.Matches(labels.Set(pod.Labels)) {
			out = append(out, e)
		}
	}
	return out
}

// pdbBlocker says why pod's PDBs forbid evicting it now, or "" when they allow it. The eviction API
// refuses a pod under more than one PDB whatever they allow, so that blocks first.
func (ix pdbIndex) pdbBlocker(pod *corev1.Pod) string {
	if !evictable(pod) {
		return ""
	}
	found := ix.matching(pod)
	switch {
	case len(found) == 0:
		return ""
	case len(found) > 1:
		names := make([]string, len(found))
		for i, e := range found {
			names[i] = e.pdb.Name
		}
		return fmt.Sprintf("pod %s matches %d PodDisruptionBudgets (%s)", podKey(pod), len(found), strings.Join(names, ", "))
	}
	e := found[0]
	if e.invalid != nil {
		return fmt.Sprintf("pdb %s/%s has an invalid selector (pod %s): %v", e.pdb.Namespace, e.pdb.Name, podKey(pod), e.invalid)
	}
	if alwaysAllowUnhealthy(e.pdb) && podNotReady(pod) {
		return ""
	}
	if e.allowed <= 0 {
		return fmt.Sprintf("pdb %s/%s allows %d disruptions (pod %s)", e.pdb.Namespace, e.pdb.Name, e.allowed, podKey(pod))
	}
	return ""
}

// charged reports whether evicting pod uses up its PDBs' allowance: it is evicted at all, and not
// a not-Ready pod under unhealthyPodEvictionPolicy AlwaysAllow (the eviction API lets those go
// without counting them). Other not-Ready pods are charged, which never overdraws.
func charged(pod *corev1.Pod, e pdbEntry) bool {
	return evictable(pod) && !(alwaysAllowUnhealthy(e.pdb) && podNotReady(pod))
}

// alwaysAllowUnhealthy reports unhealthyPodEvictionPolicy: AlwaysAllow, under which the eviction API
// lets not-Ready pods go whatever the budget says.
func alwaysAllowUnhealthy(pdb *policyv1.PodDisruptionBudget) bool {
	p := pdb.Spec.UnhealthyPodEvictionPolicy
	return p != nil && *p == policyv1.AlwaysAllow
}

// podNotReady is Karpenter's test: an explicit Ready=False condition (unknown readiness is not
// "unhealthy" to the eviction API either).
func podNotReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionFalse {
			return true
		}
	}
	return false
}

// nodeBlocker says why graceful methods may not disrupt n, or "". The node annotation is checked
// first, then the pods in namespace/name order, so the reason is the same whatever order the
// snapshot lists them in.
func nodeBlocker(n *Node, ix pdbIndex, now time.Time) string {
	if n.Node != nil && n.Node.Annotations[api.AnnotationDoNotDisrupt] == "true" {
		return fmt.Sprintf("node %s has %s=true", n.Node.Name, api.AnnotationDoNotDisrupt)
	}
	if n.NodeClaim != nil && n.NodeClaim.Annotations[api.AnnotationDoNotDisrupt] == "true" {
		return fmt.Sprintf("nodeclaim %s has %s=true", n.NodeClaim.Name, api.AnnotationDoNotDisrupt)
	}
	for _, pod := range sortedPods(n.Pods) {
		if why, _ := podDoNotDisrupt(pod, now); why != "" {
			return why
		}
		if why := ix.pdbBlocker(pod); why != "" {
			return why
		}
	}
	return ""
}

// podDoNotDisrupt reads the pod's karpenter.sh/do-not-disrupt annotation: "true" blocks; a positive
// Go duration blocks while the pod has run for less than it (a pod with no start time yet is
// protected, as in Karpenter); anything else is ignored and reported as invalid. Inactive pods
// never block.
func podDoNotDisrupt(pod *corev1.Pod, now time.Time) (blocker, invalid string) {
	value, ok := pod.Annotations[api.AnnotationDoNotDisrupt]
	if !ok || !podActive(pod) {
		return "", ""
	}
	if value == "true" {
		return fmt.Sprintf("pod %s has %s=true", podKey(pod), api.AnnotationDoNotDisrupt), ""
	}
	d, err := time.ParseDuration(value)
	if err != nil || d <= 0 {
		return "", fmt.Sprintf("pod %s: ignoring %s=%q: want \"true\" or a positive duration such as 30m",
			podKey(pod), api.AnnotationDoNotDisrupt, value)
	}
	if pod.Status.StartTime == nil {
		return fmt.Sprintf("pod %s has %s=%s and has not started", podKey(pod), api.AnnotationDoNotDisrupt, value), ""
	}
	until := pod.Status.StartTime.Add(d)
	if now.Before(until) {
		return fmt.Sprintf("pod %s has %s=%s (until %s)", podKey(pod), api.AnnotationDoNotDisrupt, value,
			until.UTC().Format(time.RFC3339)), ""
	}
	return "", ""
}

// warnings lists what the pass ignored in the input, sorted and without duplicates: pod
// do-not-disrupt values that are neither "true" nor a positive duration. Karpenter reports these as
// events; the caller reports them however it reports things.
func warnings(in *Input) []string {
	var out []string
	for i := range in.Nodes {
		for _, pod := range in.Nodes[i].Pods {
			if pod == nil {
				continue
			}
			if _, invalid := podDoNotDisrupt(pod, in.Now); invalid != "" {
				out = append(out, invalid)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// podActive is Karpenter's IsActive: neither terminal nor terminating.
func podActive(pod *corev1.Pod) bool {
	return pod.DeletionTimestamp == nil && !podTerminal(pod)
}

func podTerminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// evictable is Karpenter's IsEvictable less the do-not-disrupt test (nodeBlocker checks that
// first): pods the drain would evict through the eviction API, and so the only ones PDBs guard.
func evictable(pod *corev1.Pod) bool {
	return podActive(pod) && !mirrorPod(pod) && !toleratesDisrupted(pod)
}

// mirrorPod reports a static pod's API mirror: by its annotation, or owned by its Node.
func mirrorPod(pod *corev1.Pod) bool {
	if _, ok := pod.Annotations[corev1.MirrorPodAnnotationKey]; ok {
		return true
	}
	for _, o := range pod.OwnerReferences {
		if o.Kind == "Node" && o.APIVersion == "v1" {
			return true
		}
	}
	return false
}

// toleratesDisrupted reports a pod that tolerates karpenter.sh/disrupted:NoSchedule; the drain
// leaves such pods in place, so no eviction (and no PDB) is involved.
func toleratesDisrupted(pod *corev1.Pod) bool {
	for _, t := range pod.Spec.Tolerations {
		if t.Effect != "" && t.Effect != corev1.TaintEffectNoSchedule {
			continue
		}
		switch {
		case t.Operator == corev1.TolerationOpExists && (t.Key == "" || t.Key == api.TaintKeyDisrupted):
			return true
		case (t.Operator == "" || t.Operator == corev1.TolerationOpEqual) && t.Key == api.TaintKeyDisrupted && t.Value == "":
			return true
		}
	}
	return false
}

// sortedPods returns the non-nil pods ordered by namespace/name, as a new slice.
func sortedPods(pods []*corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(pods))
	for _, p := range pods {
		if p != nil {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.Pod) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// podKey is namespace/name.
func podKey(pod *corev1.Pod) string { return pod.Namespace + "/" + pod.Name }
