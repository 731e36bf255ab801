package snapshot_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/snapshot"
)

// A pod nominated to a node (status.nominatedNodeName: kube-scheduler's preemption, or an
// autoscaler's KEP-5278 nomination) takes that node's room until it is bound: kube-scheduler
// v1.37's nominator adds it to the node before filtering any pod of equal or lower priority
// (pkg/scheduler/framework/runtime/framework.go, addGENominatedPods). So the snapshot counts it on
// the node, for the provisioner's room and consolidation's, and keeps the node from consolidation
// (Nominated) while it waits; a nomination to a Node that is gone plans the pod like any other.
func TestTakeNominatedPods(t *testing.T) {
	nominatedTo := func(name, node string, opts ...func(*corev1.Pod)) *corev1.Pod {
		p := pod(name, "")
		p.Status.NominatedNodeName = node
		for _, o := range opts {
			o(p)
		}
		return p
	}
	deleting := func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: t0} }
	succeeded := func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }
	tests := []struct {
		name          string
		pod           *corev1.Pod
		wantOnNode    bool // among a-ready's pods, in both planners' inputs
		wantPending   bool
		wantNominated bool // a-ready is Nominated
	}{
		{"nominated to an existing node", nominatedTo("p", "a-ready"), true, false, true},
		{"nominated to a node that is gone", nominatedTo("p", "gone"), false, true, false},
		{"nominated and being deleted", nominatedTo("p", "a-ready", deleting), false, false, false},
		{"nominated and finished", nominatedTo("p", "a-ready", succeeded), false, false, false},
		{"not nominated", pod("p", ""), false, true, false},
		{"bound, with a stale nomination", func() *corev1.Pod { p := nominatedTo("p", "a-ready"); p.Spec.NodeName = "a-ready"; return p }(), true, false, false},
	}
	pooled := labels(api.LabelNodePool, "default", api.LabelInstanceType, d2, api.LabelZone, "eastus-1", api.LabelCapacityType, "on-demand")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := snapshot.Take(snapshot.Objects{Nodes: []*corev1.Node{node("a-ready", ready(t0), pooled)},
				Pods: []*corev1.Pod{tc.pod}, NodePools: pools()}, snapshot.Options{Now: t0.Add(time.Hour)})
			require.NoError(t, err)
			require.Len(t, s.Nodes, 1)

			pin := s.ProvisionerInput(provisioner.Options{})
			require.Len(t, pin.Nodes, 1)
			cin := s.ConsolidationInput(consolidation.Options{})
			require.Len(t, cin.Nodes, 1)
			if tc.wantOnNode {
				assert.Equal(t, []*corev1.Pod{tc.pod}, pin.Nodes[0].Pods, "its room is taken for the provisioner")
				assert.Equal(t, []*corev1.Pod{tc.pod}, cin.Nodes[0].Pods, "and for consolidation")
			} else {
				assert.Empty(t, pin.Nodes[0].Pods)
				assert.Empty(t, cin.Nodes[0].Pods)
			}
			if tc.wantPending {
				require.Len(t, pin.Pods, 1, "planned")
				assert.Same(t, tc.pod, pin.Pods[0], "the pod itself, not a copy")
				assert.Equal(t, []*corev1.Pod{tc.pod}, cin.PendingPods)
			} else {
				assert.Empty(t, pin.Pods)
				assert.Empty(t, cin.PendingPods)
			}
			assert.Equal(t, tc.wantNominated, cin.Nodes[0].Nominated)
		})
	}
}

// A nominated pod is no pod event: consolidateAfter is not restarted by a pod that has not arrived
// (LastPodEventAt stays zero, which consolidation reads as the node's initialization), while the same
// pod bound is one.
func TestNominatedPodIsNoPodEvent(t *testing.T) {
	pooled := labels(api.LabelNodePool, "default", api.LabelInstanceType, d2, api.LabelZone, "eastus-1", api.LabelCapacityType, "on-demand")
	created := t0.Add(30 * time.Minute)
	lastPodEvent := func(nodeName, nominated string) time.Time {
		p := pod("p", nodeName)
		p.CreationTimestamp = metav1.NewTime(created)
		p.Status.NominatedNodeName = nominated
		s, err := snapshot.Take(snapshot.Objects{Nodes: []*corev1.Node{node("a-ready", ready(t0), pooled)},
			Pods: []*corev1.Pod{p}, NodePools: pools()}, snapshot.Options{Now: t0.Add(time.Hour)})
		require.NoError(t, err)
		require.Len(t, s.Nodes, 1)
		return s.Nodes[0].LastPodEventAt
	}
	assert.True(t, lastPodEvent("", "a-ready").IsZero(), "nominated")
	assert.Equal(t, created, lastPodEvent("a-ready", ""), "bound")
}
