package controller

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/napkit/napkit/api"
)

func TestPodTier(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pod  *corev1.Pod
		want int
	}{
		{"ordinary pod", newPod("p"), tierNormal},
		{"ReplicaSet pod", newPod("p", ownedBy("ReplicaSet", true)), tierNormal},
		{"high but not critical priority", newPod("p", withPriorityClass("high-priority")), tierNormal},
		{"DaemonSet pod", newPod("p", daemon()), tierDaemon},
		{"DaemonSet owner that is not the controller", newPod("p", ownedBy("DaemonSet", false)), tierNormal},
		{"system-cluster-critical", newPod("p", withPriorityClass("system-cluster-critical")), tierCritical},
		{"system-node-critical", newPod("p", withPriorityClass("system-node-critical")), tierCritical},
		{"critical DaemonSet pod", newPod("p", daemon(), withPriorityClass("system-node-critical")), tierCriticalDaemon},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, podTier(tt.pod))
		})
	}
	// The order the drain relies on: ordinary, DaemonSet, critical, critical DaemonSet.
	assert.True(t, slices.IsSorted([]int{tierNormal, tierDaemon, tierCritical, tierCriticalDaemon}))
}

func TestToleratesDisrupted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tols []corev1.Toleration
		want bool
	}{
		{"no tolerations", nil, false},
		{"match everything (empty key, Exists)", []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, true},
		{"match every NoSchedule taint",
			[]corev1.Toleration{{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}, true},
		{"match every NoExecute taint only",
			[]corev1.Toleration{{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}, false},
		{"key, Exists", []corev1.Toleration{{Key: api.TaintKeyDisrupted, Operator: corev1.TolerationOpExists}}, true},
		{"key, Exists, NoSchedule", []corev1.Toleration{{Key: api.TaintKeyDisrupted, Operator: corev1.TolerationOpExists,
			Effect: corev1.TaintEffectNoSchedule}}, true},
		{"key, Exists, PreferNoSchedule", []corev1.Toleration{{Key: api.TaintKeyDisrupted, Operator: corev1.TolerationOpExists,
			Effect: corev1.TaintEffectPreferNoSchedule}}, false},
		{"key, Equal, empty value", []corev1.Toleration{{Key: api.TaintKeyDisrupted, Operator: corev1.TolerationOpEqual}}, true},
		{"key, default operator, empty value", []corev1.Toleration{{Key: api.TaintKeyDisrupted}}, true},
		{"key, Equal, other value", []corev1.Toleration{{Key: api.TaintKeyDisrupted, Operator: corev1.TolerationOpEqual,
			Value: "x"}}, false},
		{"other key, Exists", []corev1.Toleration{{Key: api.TaintKeyUnregistered, Operator: corev1.TolerationOpExists}}, false},
		{"the usual not-ready toleration",
			[]corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists,
				Effect: corev1.TaintEffectNoExecute}}, false},
		{"one matching among others", []corev1.Toleration{
			{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists},
			{Key: api.TaintKeyDisrupted, Operator: corev1.TolerationOpExists}}, true},
	}
	taint := disruptedTaint()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pod := newPod("p")
			pod.Spec.Tolerations = tt.tols
			assert.Equal(t, tt.want, toleratesDisrupted(pod))
			// Kubernetes' own matcher agrees on every (valid) toleration here.
			k8s := slices.ContainsFunc(tt.tols, func(tol corev1.Toleration) bool {
				return tol.ToleratesTaint(logr.Discard(), &taint, false)
			})
			assert.Equal(t, k8s, toleratesDisrupted(pod), "disagrees with corev1.Toleration.ToleratesTaint")
		})
	}
}

// TestDrainable: the drain waits for the node's live pods only, in namespace/name order.
func TestDrainable(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	tolerateAll := corev1.Toleration{Operator: corev1.TolerationOpExists}
	e.addPod(t,
		newPod("web-b", boundTo("n1")),
		newPod("web-a", boundTo("n1")),
		newPod("dns", boundTo("n1"), inNamespace("kube-system"), withPriorityClass("system-cluster-critical")),
		newPod("logs", boundTo("n1"), daemon()),
		newPod("done", boundTo("n1"), withPhase(corev1.PodSucceeded)),
		newPod("crashed", boundTo("n1"), withPhase(corev1.PodFailed)),
		newPod("static", boundTo("n1"), mirror()),
		newPod("tolerates", boundTo("n1"), daemon(), withToleration(tolerateAll)),
		newPod("terminating", boundTo("n1"), deletedAt(testNow.Add(time.Second))),
		newPod("stuck", boundTo("n1"), deletedAt(testNow.Add(-time.Second))),
		newPod("stuck-now", boundTo("n1"), deletedAt(testNow)),
		newPod("elsewhere", boundTo("n2")),
		newPod("pending"),
	)
	got := mapSlice(e.c.drainable(newNode("n1", "")), func(p *corev1.Pod) string { return p.Namespace + "/" + p.Name })
	assert.Equal(t, []string{"default/logs", "default/terminating", "default/web-a", "default/web-b", "kube-system/dns"}, got)
	assert.Empty(t, e.c.drainable(newNode("empty", "")))
}

// evictions records the eviction subresource calls and answers them with the error errFor gives.
func evictions(e *testEnv, errFor func(name string) error) *[]string {
	var evicted []string
	e.kube.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		ca := a.(k8stesting.CreateAction)
		if ca.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		ev := ca.GetObject().(*policyv1.Eviction)
		evicted = append(evicted, ev.Namespace+"/"+ev.Name)
		if errFor != nil {
			return true, nil, errFor(ev.Name)
		}
		return true, nil, nil
	})
	return &evicted
}

// TestDrainOrder: one tier at a time, lowest first; pods already terminating are waited for, not
// evicted again.
func TestDrainOrder(t *testing.T) {
	t.Parallel()
	normal := func(name string, o ...podOpt) *corev1.Pod { return newPod(name, append(o, boundTo("n1"))...) }
	critical := withPriorityClass("system-node-critical")
	tests := []struct {
		name        string
		pods        []*corev1.Pod
		wantEvicted []string
		wantDone    bool
	}{
		{name: "no pods: drained", wantDone: true},
		{name: "only skipped pods: drained", wantDone: true, pods: []*corev1.Pod{
			normal("static", mirror()), normal("done", withPhase(corev1.PodSucceeded)),
			normal("tolerates", withToleration(corev1.Toleration{Operator: corev1.TolerationOpExists}))}},
		{name: "ordinary pods go first", wantEvicted: []string{"default/a", "default/b"}, pods: []*corev1.Pod{
			normal("ds", daemon()), normal("b"), normal("crit", critical), normal("crit-ds", daemon(), critical), normal("a")}},
		{name: "then DaemonSet pods", wantEvicted: []string{"default/ds"}, pods: []*corev1.Pod{
			normal("ds", daemon()), normal("crit", critical), normal("crit-ds", daemon(), critical)}},
		{name: "then critical pods", wantEvicted: []string{"default/crit"}, pods: []*corev1.Pod{
			normal("crit", critical), normal("crit-ds", daemon(), critical)}},
		{name: "critical DaemonSet pods last", wantEvicted: []string{"default/crit-ds"}, pods: []*corev1.Pod{
			normal("crit-ds", daemon(), critical)}},
		{name: "a terminating ordinary pod holds back the DaemonSet pods", pods: []*corev1.Pod{
			normal("leaving", deletedAt(testNow.Add(30*time.Second))), normal("ds", daemon())}},
		{name: "a pod stuck past its grace period no longer holds back the next tier",
			wantEvicted: []string{"default/ds"}, pods: []*corev1.Pod{
				normal("stuck", deletedAt(testNow.Add(-time.Minute))), normal("ds", daemon())}},
		{name: "only the live pods of the tier are evicted", wantEvicted: []string{"default/b"}, pods: []*corev1.Pod{
			normal("a", deletedAt(testNow.Add(30*time.Second))), normal("b"), normal("ds", daemon())}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			e.addPod(t, tt.pods...)
			evicted := evictions(e, nil)
			done, err := e.c.drain(context.Background(), newNode("n1", ""))
			require.NoError(t, err)
			assert.Equal(t, tt.wantDone, done)
			assert.Equal(t, tt.wantEvicted, *evicted)
		})
	}
}

// TestEvict: a PDB refusal (429) is errEvictionBlocked, a pod already gone is evicted, anything
// else is an error; a successful eviction is recorded as an event on the pod.
func TestEvict(t *testing.T) {
	t.Parallel()
	gr := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		name        string
		err         error
		wantErr     bool
		wantBlocked bool
		wantEvent   bool
	}{
		{name: "evicted", wantEvent: true},
		{name: "already gone", err: apierrors.NewNotFound(gr, "p")},
		{name: "PDB refuses", err: apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 10),
			wantErr: true, wantBlocked: true},
		{name: "429 status without the reason", err: &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure,
			Code: 429, Reason: metav1.StatusReasonUnknown}}, wantErr: true, wantBlocked: true},
		{name: "server error", err: apierrors.NewInternalError(errors.New("boom")), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			pod := newPod("p", boundTo("n1"), inNamespace("apps"))
			evicted := evictions(e, func(string) error { return tt.err })
			err := e.c.evict(context.Background(), pod)
			assert.Equal(t, []string{"apps/p"}, *evicted)
			if tt.wantErr {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "apps/p")
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.wantBlocked, errors.Is(err, errEvictionBlocked))
			events, lerr := e.kube.CoreV1().Events("apps").List(context.Background(), metav1.ListOptions{})
			require.NoError(t, lerr)
			if tt.wantEvent {
				require.Len(t, events.Items, 1)
				assert.Equal(t, "Evicted", events.Items[0].Reason)
				assert.Equal(t, "p", events.Items[0].InvolvedObject.Name)
			} else {
				assert.Empty(t, events.Items)
			}
		})
	}
}

// TestDrainJoinsErrors: a blocked eviction does not stop the other evictions of the tier.
func TestDrainJoinsErrors(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.addPod(t, newPod("a", boundTo("n1")), newPod("b", boundTo("n1")), newPod("c", boundTo("n1")))
	evicted := evictions(e, func(name string) error {
		if name == "a" {
			return apierrors.NewTooManyRequests("budget", 1)
		}
		return nil
	})
	done, err := e.c.drain(context.Background(), newNode("n1", ""))
	assert.False(t, done)
	require.ErrorIs(t, err, errEvictionBlocked)
	assert.Equal(t, []string{"default/a", "default/b", "default/c"}, *evicted)
}
