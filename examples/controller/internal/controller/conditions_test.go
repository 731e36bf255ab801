package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/snapshot"
)

// TestSetConditionReadyRollUp walks a claim through a sequence of condition changes and checks,
// after each, what setCondition reported and where Ready stands.
func TestSetConditionReadyRollUp(t *testing.T) {
	t.Parallel()
	type step struct {
		kind        string
		status      metav1.ConditionStatus
		wantChanged bool
		wantReady   metav1.ConditionStatus
	}
	const (
		T = metav1.ConditionTrue
		F = metav1.ConditionFalse
	)
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "the lifecycle in order", steps: []step{
			{api.ConditionLaunched, T, true, F},
			{api.ConditionRegistered, T, true, F},
			{api.ConditionInitialized, T, true, T},
		}},
		{name: "any order", steps: []step{
			{api.ConditionInitialized, T, true, F},
			{api.ConditionRegistered, T, true, F},
			{api.ConditionLaunched, T, true, T},
		}},
		{name: "setting the same condition again changes nothing", steps: []step{
			{api.ConditionLaunched, T, true, F},
			{api.ConditionLaunched, T, false, F},
		}},
		{name: "a lifecycle condition turning false makes Ready false", steps: []step{
			{api.ConditionLaunched, T, true, F},
			{api.ConditionRegistered, T, true, F},
			{api.ConditionInitialized, T, true, T},
			{api.ConditionRegistered, F, true, F},
		}},
		{name: "a failed launch is not ready", steps: []step{
			{api.ConditionLaunched, F, true, F},
		}},
		{name: "other conditions do not count towards Ready", steps: []step{
			{api.ConditionDrifted, T, true, F},
			{api.ConditionLaunched, T, true, F},
			{api.ConditionRegistered, T, true, F},
			{api.ConditionInitialized, T, true, T},
			{api.ConditionConsolidatable, F, true, T},
			{api.ConditionDrifted, F, true, T},
		}},
		{name: "Ready itself is set as given, without roll-up", steps: []step{
			{api.ConditionReady, T, true, T},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			nc := &api.NodeClaim{}
			for i, s := range tt.steps {
				changed := setCondition(nc, s.kind, s.status, "Reason", "", testNow.Add(time.Duration(i)*time.Second))
				assert.Equal(t, s.wantChanged, changed, "step %d (%s=%s): changed", i, s.kind, s.status)
				c := condition(nc, s.kind)
				require.NotNil(t, c, "step %d", i)
				assert.Equal(t, s.status, c.Status, "step %d", i)
				ready := condition(nc, api.ConditionReady)
				require.NotNil(t, ready, "step %d: Ready is always present", i)
				assert.Equal(t, s.wantReady, ready.Status, "step %d (%s=%s): Ready", i, s.kind, s.status)
				if s.kind != api.ConditionReady {
					assert.Equal(t, string(s.wantReady), ready.Reason, "step %d: Ready's reason", i)
				}
			}
		})
	}
}

// TestSetConditionTransitionTime: the transition time moves only when the status does, and a
// changed message alone still counts as a change.
func TestSetConditionTransitionTime(t *testing.T) {
	t.Parallel()
	nc := &api.NodeClaim{}
	t0, t1, t2 := testNow, testNow.Add(time.Minute), testNow.Add(2*time.Minute)
	require.True(t, setCondition(nc, api.ConditionLaunched, metav1.ConditionTrue, "Launched", "", t0))
	assert.False(t, setCondition(nc, api.ConditionLaunched, metav1.ConditionTrue, "Launched", "", t1))
	assert.Equal(t, t0, condition(nc, api.ConditionLaunched).LastTransitionTime.Time)
	assert.True(t, setCondition(nc, api.ConditionLaunched, metav1.ConditionTrue, "Launched", "with a message", t1))
	assert.Equal(t, t0, condition(nc, api.ConditionLaunched).LastTransitionTime.Time, "same status keeps the time")
	assert.True(t, setCondition(nc, api.ConditionLaunched, metav1.ConditionFalse, reasonLaunchFailed, "no capacity", t2))
	assert.Equal(t, t2, condition(nc, api.ConditionLaunched).LastTransitionTime.Time)
	assert.Equal(t, t0, condition(nc, api.ConditionReady).LastTransitionTime.Time, "Ready stayed False since t0")
	assert.True(t, snapshot.LaunchFailed(nc))
}

func TestInitializedAt(t *testing.T) {
	t.Parallel()
	at := testNow.Add(-time.Hour)
	tests := []struct {
		name string
		nc   *api.NodeClaim
		want time.Time
	}{
		{"no conditions", &api.NodeClaim{}, time.Time{}},
		{"launched and registered only", testClaim("c", "p", "", launched(), registered()), time.Time{}},
		{"initialized", testClaim("c", "p", "", launched(), registered(),
			withCondition(api.ConditionInitialized, metav1.ConditionTrue, "Initialized", at)), at},
		{"initialized false", testClaim("c", "p", "",
			withCondition(api.ConditionInitialized, metav1.ConditionFalse, "NotReady", at)), time.Time{}},
		{"initialized unknown", testClaim("c", "p", "",
			withCondition(api.ConditionInitialized, metav1.ConditionUnknown, "Unknown", at)), time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.True(t, tt.want.Equal(initializedAt(tt.nc)), "got %s, want %s", initializedAt(tt.nc), tt.want)
		})
	}
}

func TestClaimLifecycleReaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                              string
		nc                                *api.NodeClaim
		launched, registered, initialized bool
		failed                            bool
	}{
		{name: "new", nc: testClaim("c", "p", "")},
		{name: "launched", nc: testClaim("c", "p", "", launched()), launched: true},
		{name: "registered", nc: testClaim("c", "p", "", launched(), registered()), launched: true, registered: true},
		{name: "initialized", nc: testClaim("c", "p", "", launched(), registered(), initialized()),
			launched: true, registered: true, initialized: true},
		{name: "launch failed", nc: testClaim("c", "p", "",
			withCondition(api.ConditionLaunched, metav1.ConditionFalse, reasonLaunchFailed, testNow)), failed: true},
		{name: "launched false for another reason: the launch gave up all the same", nc: testClaim("c", "p", "",
			withCondition(api.ConditionLaunched, metav1.ConditionFalse, "Pending", testNow)), failed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.launched, claimLaunched(tt.nc))
			assert.Equal(t, tt.registered, claimRegistered(tt.nc))
			assert.Equal(t, tt.initialized, claimInitialized(tt.nc))
			assert.Equal(t, tt.failed, snapshot.LaunchFailed(tt.nc))
		})
	}
}

func TestHasTaint(t *testing.T) {
	t.Parallel()
	taints := []corev1.Taint{{Key: api.TaintKeyUnregistered, Effect: corev1.TaintEffectNoExecute}}
	assert.True(t, hasTaint(taints, api.TaintKeyUnregistered))
	assert.False(t, hasTaint(taints, api.TaintKeyDisrupted))
	assert.False(t, hasTaint(nil, api.TaintKeyDisrupted))
}

func TestFinalizers(t *testing.T) {
	t.Parallel()
	node := newNode("n", "")
	assert.False(t, hasFinalizer(node, api.TerminationFinalizer))
	assert.True(t, addFinalizer(node, api.TerminationFinalizer))
	assert.False(t, addFinalizer(node, api.TerminationFinalizer), "added once")
	assert.Equal(t, []string{api.TerminationFinalizer}, node.Finalizers)
	node.Finalizers = append(node.Finalizers, "other")
	assert.True(t, removeFinalizer(node, api.TerminationFinalizer))
	assert.False(t, removeFinalizer(node, api.TerminationFinalizer))
	assert.Equal(t, []string{"other"}, node.Finalizers)
}
