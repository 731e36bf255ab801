package controller

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
)

// TestMarkUnneeded: ten empty nodes at the default budget. The pass may delete one, and all ten
// are unneeded, so all ten get the soft taint; with pods pending nothing changes; off, nothing is
// written.
func TestMarkUnneeded(t *testing.T) {
	for _, tc := range []struct {
		name       string
		on         bool
		pending    bool
		disrupting string
		want       int
	}{
		{name: "on", on: true, want: 10},
		{name: "off", on: false, want: 0},
		{name: "on, pods pending", on: true, pending: true, want: 0},
		{name: "on, a command under way", on: true, disrupting: "n09", want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := chainEnv(t, 10)
			e.c.cfg.MarkUnneeded = tc.on
			if tc.pending {
				e.addPod(t, newPod("waiting"))
			}
			in, plan := firstDecision(t, e)
			if tc.disrupting != "" {
				e.c.state.setDisrupting([]string{tc.disrupting}, true)
			}
			before := len(e.kube.Actions())
			e.c.markUnneeded(t.Context(), in, plan, time.Time{})
			assert.Len(t, e.kube.Actions(), before+tc.want, "one Node update per node marked")
			var marked int
			for i := range 10 {
				node := e.storedNode(t, fmt.Sprintf("n%02d", i))
				if hasTaint(node.Spec.Taints, api.TaintKeyDeletionCandidate) {
					marked++
					assert.Contains(t, node.Spec.Taints, api.DeletionCandidateTaint())
				}
			}
			assert.Equal(t, tc.want, marked)
		})
	}
}

// TestSetDeletionCandidates: the taint follows the set, one write per change; other taints stay,
// and a node being deleted is left alone.
func TestSetDeletionCandidates(t *testing.T) {
	e := newTestEnv(t)
	user := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	candidate := api.DeletionCandidateTaint()
	e.addNode(t,
		newNode("keep-marked", pid("keep-marked"), tainted(candidate.Key, candidate.Effect)),
		newNode("to-mark", pid("to-mark"), func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{user} }),
		newNode("to-unmark", pid("to-unmark"), func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{user, candidate} }),
		newNode("plain", pid("plain")),
		newNode("going", pid("going"), nodeDeleting(), tainted(candidate.Key, candidate.Effect)))
	before := len(e.kube.Actions())
	e.c.setDeletionCandidates(t.Context(), e.c.nodes(), sets.New("keep-marked", "to-mark"))
	assert.Len(t, e.kube.Actions(), before+2, "two changes, two writes")
	for name, want := range map[string][]corev1.Taint{
		"keep-marked": {candidate},
		"to-mark":     {user, candidate},
		"to-unmark":   {user},
		"plain":       nil,
		"going":       {candidate},
	} {
		assert.Equal(t, want, e.storedNode(t, name).Spec.Taints, name)
	}
}

func TestSetTaint(t *testing.T) {
	n := newNode("n", pid("n"))
	candidate := api.DeletionCandidateTaint()
	require.True(t, setTaint(n, candidate, true))
	require.False(t, setTaint(n, candidate, true), "already there")
	require.True(t, setTaint(n, candidate, false))
	require.False(t, setTaint(n, candidate, false), "already gone")
	assert.Empty(t, n.Spec.Taints)
}

// refreshNodes puts the named nodes as the fake API server stores them into the informer cache,
// as the informer would after the controller's writes.
func refreshNodes(t *testing.T, e *testEnv, names ...string) {
	t.Helper()
	for _, name := range names {
		require.NoError(t, e.c.inf.nodes.GetIndexer().Update(e.storedNode(t, name)))
	}
}

// TestSetDeletionCandidatesBounded: one pass writes at most maxMarkWrites Nodes; the next writes
// the rest.
func TestSetDeletionCandidatesBounded(t *testing.T) {
	e := newTestEnv(t)
	want := sets.New[string]()
	for i := range maxMarkWrites + 7 {
		name := fmt.Sprintf("n%03d", i)
		e.addNode(t, newNode(name, pid(name)))
		want.Insert(name)
	}
	before := len(e.kube.Actions())
	e.c.setDeletionCandidates(t.Context(), e.c.nodes(), want)
	assert.Len(t, e.kube.Actions(), before+maxMarkWrites)
	refreshNodes(t, e, sets.List(want)...)
	before = len(e.kube.Actions())
	e.c.setDeletionCandidates(t.Context(), e.c.nodes(), want)
	assert.Len(t, e.kube.Actions(), before+7, "the rest in the next pass")
	for name := range want {
		assert.True(t, hasTaint(e.storedNode(t, name).Spec.Taints, api.TaintKeyDeletionCandidate), name)
	}
}

// TestMarkUnneededOffClears: with the option off, the marks an earlier run left are removed (and
// nothing is written when there are none, as TestMarkUnneeded's "off" case shows).
func TestMarkUnneededOffClears(t *testing.T) {
	e := chainEnv(t, 10)
	e.c.cfg.MarkUnneeded = true
	in, plan := firstDecision(t, e)
	e.c.markUnneeded(t.Context(), in, plan, time.Time{})
	for i := range 10 {
		refreshNodes(t, e, fmt.Sprintf("n%02d", i))
	}
	e.c.cfg.MarkUnneeded = false
	e.c.markUnneeded(t.Context(), in, plan, time.Time{})
	for i := range 10 {
		name := fmt.Sprintf("n%02d", i)
		assert.False(t, hasTaint(e.storedNode(t, name).Spec.Taints, api.TaintKeyDeletionCandidate), name)
	}
}
