package controller

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// spreadWaits holds a pod with a DoNotSchedule topology spread for as long as the siblings its
// plan counted on are still coming: the grace of a pod held on an initialized node starts only
// once every held sibling (a pod with the same constraint) planned in the same batch or an earlier
// one has its own node initialized.
//
// Why: the plan counts a spread's domains with the pods it holds for nodes still booting, while
// kube-scheduler counts the pods bound (podtopologyspread/filtering.go, k8s.io/kubernetes v1.37:
// skew = the domain's matching pods + 1 - the smallest domain's). A batch that puts three
// replicas of a maxSkew-1 zone spread on each of four zones' nodes, one zone's node a new
// NodeClaim, leaves kube-scheduler refusing the second replica in every other zone until that
// node registers and its replica binds, 35 s with a 30 s create. Held for the grace after the
// plan alone (20-30 s), the replicas on the existing nodes were released before that, planned
// again onto new claims and bound 56-63 s after they appeared, the longest waits of the 10-minute
// churn at 1,000 pods (docs/benchmarks.md, seventeenth session). Siblings planned by a later batch
// do not extend the wait (a churn keeps planning them), so every wait ends.
type spreadWaits struct {
	keys   map[*corev1.Pod][]string      // the held pods' spread keys
	groups map[string][]siblingReadiness // by spread key, in plan order, readiness accumulated
}

// siblingReadiness is when the held pods of a spread group planned up to plannedAt could all be
// bound: coming while one of their targets is still in flight or booting, else the latest of
// their plans and their nodes' initializations.
type siblingReadiness struct {
	plannedAt time.Time
	ready     time.Time
	coming    bool
}

// collectSpread records, before the hold decides, where the pods with a DoNotSchedule spread are
// held: a target gone holds nothing (its pods are planned again), a claim just created that the
// caches do not show yet (within the grace) is coming.
func (h *holdPass) collectSpread(where map[string]plannedPod, targets map[string]heldTarget) {
	h.spread = &spreadWaits{keys: map[*corev1.Pod][]string{}, groups: map[string][]siblingReadiness{}}
	for _, pod := range h.in.Pods {
		keys := spreadKeys(pod)
		if len(keys) == 0 {
			continue
		}
		r, ok := where[pod.Namespace+"/"+pod.Name]
		if !ok {
			continue
		}
		s := siblingReadiness{plannedAt: r.at}
		if t, there := targets[r.target]; there {
			s.coming = t.inFlight >= 0 || !t.initialized
			s.ready = latest(r.at, t.initializedAt)
		} else if s.coming = r.unseen && h.now.Before(r.at.Add(h.grace)); !s.coming {
			continue
		}
		h.spread.keys[pod] = keys
		for _, k := range keys {
			h.spread.groups[k] = append(h.spread.groups[k], s)
		}
	}
	h.spread.seal()
}

// seal orders each group by plan time and accumulates readiness along it, so that entry i says
// whether the siblings planned up to entry i's time could all be bound, and since when.
func (w *spreadWaits) seal() {
	for _, g := range w.groups {
		slices.SortStableFunc(g, func(a, b siblingReadiness) int { return a.plannedAt.Compare(b.plannedAt) })
		for i := 1; i < len(g); i++ {
			g[i].coming = g[i].coming || g[i-1].coming
			g[i].ready = latest(g[i].ready, g[i-1].ready)
		}
	}
}

// waitFor is what pod, planned at `at`, waits on among its siblings: coming while one planned no
// later is still coming, else the time the last of them could be bound (zero without siblings).
func (w *spreadWaits) waitFor(pod *corev1.Pod, at time.Time) (time.Time, bool) {
	var ready time.Time
	for _, k := range w.keys[pod] {
		g := w.groups[k]
		i := sort.Search(len(g), func(j int) bool { return g[j].plannedAt.After(at) })
		if i == 0 {
			continue
		}
		s := g[i-1]
		if s.coming {
			return time.Time{}, true
		}
		ready = latest(ready, s.ready)
	}
	return ready, false
}

// spreadKeys names the pod's DoNotSchedule constraints: the namespace, the topology key, the
// selector (its labels sorted, its expressions in their order) and the pod's values of its
// matchLabelKeys (which kube-scheduler adds to the selector), so that the replicas of one
// workload share their keys. Written out rather than parsed: a hold meets every pending pod of a
// burst, and the parse cost more than the rest of the hold (BenchmarkPlannedPodsHoldSpread).
func spreadKeys(pod *corev1.Pod) []string {
	var keys []string
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != corev1.DoNotSchedule {
			continue
		}
		var b strings.Builder
		writeParts(&b, 0, pod.Namespace, c.TopologyKey)
		writeSelector(&b, c.LabelSelector)
		for _, l := range c.MatchLabelKeys {
			writeParts(&b, 0, l, pod.Labels[l])
		}
		keys = append(keys, b.String())
	}
	return keys
}

// writeSelector writes sel canonically enough for siblings: the same template gives the same text.
func writeSelector(b *strings.Builder, sel *metav1.LabelSelector) {
	if sel == nil {
		b.WriteByte(1)
		return
	}
	labelKeys := slices.Collect(maps.Keys(sel.MatchLabels))
	if len(labelKeys) > 1 {
		slices.Sort(labelKeys)
	}
	for _, k := range labelKeys {
		writeParts(b, 2, k, sel.MatchLabels[k])
	}
	for _, e := range sel.MatchExpressions {
		writeParts(b, 3, e.Key, string(e.Operator))
		writeParts(b, 4, e.Values...)
	}
}

// writeParts writes each part after the separator byte sep.
func writeParts(b *strings.Builder, sep byte, parts ...string) {
	for _, p := range parts {
		b.WriteByte(sep)
		b.WriteString(p)
	}
}

// latest is the later of two times.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
