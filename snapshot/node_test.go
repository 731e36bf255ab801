package snapshot_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/snapshot"
)

// Registered and Initialized: a claim with lifecycle conditions decides; a node without one (or with a
// claim written by hand) is read from its readiness and taints.
func TestRegisteredInitialized(t *testing.T) {
	pool := &pools()[0]
	unregistered := taint(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute)
	launched := condition(api.ConditionLaunched, metav1.ConditionTrue, t0)
	registered := condition(api.ConditionRegistered, metav1.ConditionTrue, t0)
	initialized := condition(api.ConditionInitialized, metav1.ConditionTrue, t0)
	tests := []struct {
		name                    string
		node                    *corev1.Node
		claim                   *api.NodeClaim
		registered, initialized bool
	}{
		{"launched, not registered", node("n", ready(t0), unregistered), claim("c", launched), false, false},
		{"registered, not initialized", node("n", ready(t0)), claim("c", launched, registered), true, false},
		{"initialized", node("n", ready(t0)), claim("c", launched, registered, initialized), true, true},
		{"the claim wins over taints and readiness", node("n", unregistered), claim("c", launched, registered, initialized), true, true},
		{"no claim, Ready", node("n", ready(t0)), nil, true, true},
		{"no claim, no Ready condition", node("n"), nil, true, false},
		{"no claim, unregistered taint", node("n", ready(t0), unregistered), nil, false, false},
		{"no claim, ephemeral taint", node("n", ready(t0), taint(corev1.TaintNodeNotReady, corev1.TaintEffectNoSchedule)), nil, true, false},
		{"no claim, the pool's startup taint", node("n", ready(t0), taint("agent-not-ready", corev1.TaintEffectNoSchedule)), nil, true, false},
		{"no claim, startup key with another effect", node("n", ready(t0), taint("agent-not-ready", corev1.TaintEffectNoExecute)), nil, true, true},
		{"no claim, a user taint", node("n", ready(t0), taint("dedicated", corev1.TaintEffectNoSchedule)), nil, true, true},
		{"hand-written claim: read from the node", node("n", ready(t0)), claim("c"), true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.registered, snapshot.Registered(tc.node, tc.claim), "registered")
			assert.Equal(t, tc.initialized, snapshot.Initialized(tc.node, tc.claim, pool), "initialized")
		})
	}
}

func TestWaitingFor(t *testing.T) {
	startup := []corev1.Taint{{Key: "agent-not-ready", Effect: corev1.TaintEffectNoSchedule}}
	tests := []struct {
		name string
		node *corev1.Node
		want string
	}{
		{"not Ready", node("n"), "node is not Ready"},
		{"Ready and clean", node("n", ready(t0)), ""},
		{"startup taint", node("n", ready(t0), taint("agent-not-ready", corev1.TaintEffectNoSchedule)), "taint agent-not-ready is still present"},
		{"cloud provider taint", node("n", ready(t0), taint("node.cloudprovider.kubernetes.io/uninitialized", corev1.TaintEffectNoSchedule)),
			"taint node.cloudprovider.kubernetes.io/uninitialized is still present"},
		{"disrupted taint does not count", node("n", ready(t0), taint(api.TaintKeyDisrupted, corev1.TaintEffectNoSchedule)), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, snapshot.WaitingFor(tc.node, startup))
		})
	}
}

func TestInitializedAt(t *testing.T) {
	at := t0.Add(time.Minute)
	tests := []struct {
		name  string
		node  *corev1.Node
		claim *api.NodeClaim
		want  time.Time
	}{
		{"claim's Initialized condition", node("n", ready(t0)), claim("c", condition(api.ConditionInitialized, metav1.ConditionTrue, at)), at},
		{"claim not initialized yet", node("n", ready(t0)), claim("c", condition(api.ConditionLaunched, metav1.ConditionTrue, t0)), time.Time{}},
		{"no claim: Ready since", node("n", ready(at)), nil, at},
		{"no claim, not Ready", node("n"), nil, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, snapshot.InitializedAt(tc.node, tc.claim))
		})
	}
}

func TestLastPodEventAt(t *testing.T) {
	started := pod("p", "n")
	started.Status.StartTime = &metav1.Time{Time: t0.Add(time.Hour)}
	withTime := claim("c")
	withTime.Status.LastPodEventTime = metav1.NewTime(t0.Add(2 * time.Hour))
	remembered := t0.Add(3 * time.Hour)
	tests := []struct {
		name        string
		remembered  time.Time
		claim       *api.NodeClaim
		pods        []*corev1.Pod
		initialized time.Time
		want        time.Time
	}{
		{"remembered wins", remembered, withTime, []*corev1.Pod{started}, t0, remembered},
		{"the claim's status is left to consolidation", time.Time{}, withTime, []*corev1.Pod{started}, t0, time.Time{}},
		{"latest pod start", time.Time{}, claim("c"), []*corev1.Pod{pod("q", "n"), started}, t0, t0.Add(time.Hour)},
		{"pods older than initialization say nothing", time.Time{}, nil, []*corev1.Pod{started}, t0.Add(90 * time.Minute), time.Time{}},
		{"no pods", time.Time{}, nil, nil, t0, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, snapshot.LastPodEventAt(tc.remembered, tc.claim, tc.pods, tc.initialized))
		})
	}
}

func TestDeleting(t *testing.T) {
	gone := claim("c")
	gone.DeletionTimestamp = &metav1.Time{Time: t0}
	tests := []struct {
		name  string
		node  *corev1.Node
		claim *api.NodeClaim
		want  bool
	}{
		{"alive", node("n"), claim("c"), false},
		{"node deleted", node("n", deletingNode), nil, true},
		{"claim deleted", node("n"), gone, true},
		{"disrupted taint", node("n", taint(api.TaintKeyDisrupted, corev1.TaintEffectNoSchedule)), nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, snapshot.Deleting(tc.node, tc.claim))
		})
	}
}

func TestPending(t *testing.T) {
	unschedulable := func(p *corev1.Pod) *corev1.Pod {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
		return p
	}
	nominated := unschedulable(pod("p", ""))
	nominated.Status.NominatedNodeName = "n"
	gated := unschedulable(pod("p", ""))
	gated.Status.Conditions[0].Reason = "SchedulingGated"
	gatedSpec := pod("p", "")
	gatedSpec.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
	bindingFailed := pod("p", "")
	bindingFailed.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulerError}}
	deleting := unschedulable(pod("p", ""))
	deleting.DeletionTimestamp = &metav1.Time{Time: t0}
	failed := unschedulable(pod("p", ""))
	failed.Status.Phase = corev1.PodFailed
	daemon := unschedulable(pod("p", ""))
	daemon.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "ds", Controller: ptr(true)}}
	mirror := unschedulable(pod("p", ""))
	mirror.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
	tests := []struct {
		name                string
		pod                 *corev1.Pod
		manifest, scheduler bool // Pending without and with the scheduler's mark
		live                bool // PendingLive
	}{
		{"unschedulable", unschedulable(pod("p", "")), true, true, true},
		{"not seen by kube-scheduler yet", pod("p", ""), true, false, true},
		{"scheduler error", bindingFailed, true, false, true},
		{"bound", pod("p", "n"), false, false, false},
		{"nominated", nominated, false, false, false},
		{"gated", gated, true, false, false},
		{"gate in the spec, not seen by kube-scheduler yet", gatedSpec, true, false, false},
		{"being deleted", deleting, false, false, false},
		{"failed", failed, false, false, false},
		{"DaemonSet pod", daemon, false, false, false},
		{"mirror pod", mirror, false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.manifest, snapshot.Pending(tc.pod, false), "manifest")
			assert.Equal(t, tc.scheduler, snapshot.Pending(tc.pod, true), "live cluster")
			assert.Equal(t, tc.live, snapshot.PendingLive(tc.pod), "live cluster, not waiting for kube-scheduler")
			assert.Equal(t, tc.manifest, snapshot.PendingUnbound.Pending(tc.pod), "rule PendingUnbound")
			assert.Equal(t, tc.scheduler, snapshot.PendingUnschedulable.Pending(tc.pod), "rule PendingUnschedulable")
			assert.Equal(t, tc.live, snapshot.PendingUngated.Pending(tc.pod), "rule PendingUngated")
		})
	}
}

func ptr[T any](v T) *T { return &v }
