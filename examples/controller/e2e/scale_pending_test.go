//go:build e2e && scale

package e2e

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/napkit/napkit/api"
)

// podLife is one pod's way from creation to Running as the suite's watch saw it: the churn target
// is about how long a pod waits, and only its timeline (and its node's) says on what.
type podLife struct {
	name                                   string
	created, unschedulable, bound, running time.Time
	node                                   string
}

// nodeLife is when the watch saw a node registered, initialized (Ready, startup taints gone) and
// tainted karpenter.sh/disrupted, and its NodeClaim (from the claim's status.nodeName).
type nodeLife struct {
	registered, initialized, disrupted time.Time
	claim                              string
	claimCreated                       time.Time
}

// onNode stamps a node's registration, initialization and disruption taint as the events come.
func (w *watcher) onNode(obj any) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.nodeLife(node.Name)
	if n.registered.IsZero() {
		n.registered = now
	}
	if n.initialized.IsZero() && node.Labels[api.LabelNodeInitialized] == "true" && nodeIsReady(node) {
		n.initialized = now
	}
	if n.disrupted.IsZero() && slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == api.TaintKeyDisrupted }) {
		n.disrupted = now
	}
}

// onClaim remembers when each NodeClaim was first seen and ties it to its node once registered.
func (w *watcher) onClaim(obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, seen := w.claimSeen[u.GetName()]; !seen {
		w.claimSeen[u.GetName()] = now
	}
	if nodeName, _, _ := unstructured.NestedString(u.Object, "status", "nodeName"); nodeName != "" {
		n := w.nodeLife(nodeName)
		n.claim, n.claimCreated = u.GetName(), w.claimSeen[u.GetName()]
	}
}

// nodeLife returns the node's record, creating it when new; w.mu is held.
func (w *watcher) nodeLife(name string) *nodeLife {
	n := w.nodeLives[name]
	if n == nil {
		n = &nodeLife{}
		w.nodeLives[name] = n
	}
	return n
}

// pendingStats is the distribution of creation-to-binding waits of the pods created in a phase.
type pendingStats struct {
	Bound              int
	Unbound            int // created in the phase and deleted or still pending at its end
	P50, P90, P99, Max float64
	OverBound          int       // waits longer than the bound pendingSince was given
	RunningMax         float64   // creation to Running, the longest
	Worst              []podLife // the longest waits, longest first
}

// pendingSince is the distribution of the waits of pods created at or after from, how many
// waited longer than bound, and the worst `worst` pods' lives.
func (w *watcher) pendingSince(from time.Time, worst int, bound time.Duration) pendingStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	var lives []podLife
	var st pendingStats
	for _, l := range w.lives {
		switch {
		case l.created.Before(from):
		case l.bound.IsZero():
			st.Unbound++
		default:
			lives = append(lives, *l)
		}
	}
	if len(lives) == 0 {
		return st
	}
	slices.SortFunc(lives, func(a, b podLife) int { return cmp.Compare(b.wait(), a.wait()) })
	at := func(q float64) float64 { return lives[int(q*float64(len(lives)-1))].wait().Seconds() }
	st.Bound, st.Max, st.P99, st.P90, st.P50 = len(lives), lives[0].wait().Seconds(), at(0.01), at(0.10), at(0.50)
	for _, l := range lives {
		if l.wait() > bound {
			st.OverBound++
		}
		if !l.running.IsZero() {
			st.RunningMax = max(st.RunningMax, l.running.Sub(l.created).Seconds())
		}
	}
	st.Worst = lives[:min(worst, len(lives))]
	return st
}

func (l podLife) wait() time.Duration { return l.bound.Sub(l.created) }

// timeline is one pod's life and its node's, in seconds after the pod's creation, for the log:
// what a long wait waited on (a node still coming, a node there long before the binding).
func (w *watcher) timeline(l podLife) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	rel := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return fmt.Sprintf("%+.1fs", t.Sub(l.created).Seconds())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s created %s: unschedulable %s, bound %s, Running %s on %s", l.name,
		l.created.UTC().Format("15:04:05.0"), rel(l.unschedulable), rel(l.bound), rel(l.running), l.node)
	if n := w.nodeLives[l.node]; n != nil {
		fmt.Fprintf(&b, " (NodeClaim %s seen %s; node registered %s, initialized %s, disrupted taint %s)",
			n.claim, rel(n.claimCreated), rel(n.registered), rel(n.initialized), rel(n.disrupted))
	}
	return b.String()
}

// reportPending puts the churn's pending-time distribution in the report, with how many pods
// waited longer than bound (the "one batch plus the boot": the batch's longest, the VM
// create and the boot delay), and logs the timelines of its worst pods.
func reportPending(t *testing.T, w *watcher, from time.Time, bound time.Duration, r *scaleReport) {
	t.Helper()
	st := w.pendingSince(from, 10, bound)
	r.ChurnBound, r.ChurnUnbound = st.Bound, st.Unbound
	r.ChurnPendingP50, r.ChurnPendingP90, r.ChurnPendingP99, r.ChurnPendingMax = st.P50, st.P90, st.P99, st.Max
	r.ChurnPendingBoundSeconds, r.ChurnOverBound = bound.Seconds(), st.OverBound
	t.Logf("churn pending (creation to binding) of %d pods bound (%d deleted or unbound): p50 %.1f s, p90 %.1f s, p99 %.1f s, max %.1f s, "+
		"%d longer than %.0f s (one batch, the VM create and the boot); creation to Running max %.1f s",
		st.Bound, st.Unbound, st.P50, st.P90, st.P99, st.Max, st.OverBound, bound.Seconds(), st.RunningMax)
	for _, l := range st.Worst {
		t.Logf("churn worst: %s", w.timeline(l))
	}
}

// lastClaimSeen is when the watcher first saw the newest NodeClaim (zero without any).
func (w *watcher) lastClaimSeen() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	var last time.Time
	for _, at := range w.claimSeen {
		if at.After(last) {
			last = at
		}
	}
	return last
}
