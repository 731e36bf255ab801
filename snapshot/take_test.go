package snapshot_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/snapshot"
)

// In flight: claims not deleted, not failed, whose node has not registered, of a known pool and type.
func TestTakeInFlight(t *testing.T) {
	launched := condition(api.ConditionLaunched, metav1.ConditionTrue, t0)
	registered := condition(api.ConditionRegistered, metav1.ConditionTrue, t0)
	gone := claim("c")
	gone.DeletionTimestamp = &metav1.Time{Time: t0}
	launchList := claim("c")
	delete(launchList.Labels, api.LabelInstanceType)
	launchList.Spec.Requirements = []api.NodeSelectorRequirementWithMinValues{{Key: api.LabelInstanceType, Values: []string{d2, "Standard_D4s_v3"}}}
	otherPool := claim("c")
	otherPool.Labels[api.LabelNodePool] = "gone"
	tests := []struct {
		name   string
		nodes  []*corev1.Node
		claim  *api.NodeClaim
		want   []string
		issues int
	}{
		{"not launched yet", nil, claim("c"), []string{"c"}, 0},
		{"launched, no node", nil, claim("c", launched, claimProviderID("p1")), []string{"c"}, 0},
		{"node not registered", []*corev1.Node{node("n", providerID("p1"), taint(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute))},
			claim("c", launched, claimProviderID("p1")), []string{"c"}, 0},
		{"registered: a node now", []*corev1.Node{node("n", providerID("p1"))}, claim("c", launched, registered, claimProviderID("p1")), nil, 0},
		{"being deleted", nil, gone, nil, 0},
		{"launch failed", nil, claim("c", condition(api.ConditionLaunched, metav1.ConditionFalse, t0)), nil, 0},
		{"first of the launch list", nil, launchList, []string{"c"}, 0},
		{"unknown pool", nil, otherPool, nil, 1},
		{"node without provider ID does not match", []*corev1.Node{node("static", ready(t0))}, claim("c"), []string{"c"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := snapshot.Take(snapshot.Objects{Nodes: tc.nodes, NodeClaims: []*api.NodeClaim{tc.claim}, NodePools: pools()}, snapshot.Options{})
			require.NoError(t, err)
			var names []string
			for _, f := range s.InFlight {
				names = append(names, f.Name)
				assert.Equal(t, d2, f.InstanceType)
			}
			assert.Equal(t, tc.want, names)
			assert.Len(t, s.Issues, tc.issues)
		})
	}
}

// Strict makes what does not fit an error naming object, field and value; otherwise it is listed.
func TestTakeIssues(t *testing.T) {
	pooled := labels(api.LabelNodePool, "default", api.LabelInstanceType, d2, api.LabelZone, "eastus-1", api.LabelCapacityType, "spot")
	tests := []struct {
		name string
		objs snapshot.Objects
		want string
	}{
		{"pod on a missing node", snapshot.Objects{Pods: []*corev1.Pod{pod("web-0", "ghost")}},
			`Pod default/web-0: spec.nodeName: no Node "ghost"`},
		{"node of a missing pool", snapshot.Objects{Nodes: []*corev1.Node{node("n1", labels(api.LabelNodePool, "other"))}, NodePools: pools()},
			`Node n1: metadata.labels[karpenter.sh/nodepool]: no NodePool "other"`},
		{"node of a pool without its zone", snapshot.Objects{Nodes: []*corev1.Node{node("n1", labels(api.LabelNodePool, "default", api.LabelInstanceType, d2, api.LabelCapacityType, "spot"))}, NodePools: pools()},
			`Node n1: metadata.labels[topology.kubernetes.io/zone]: required on a node of NodePool default`},
		{"two claims for one node", snapshot.Objects{Nodes: []*corev1.Node{node("n1", pooled)}, NodePools: pools(),
			NodeClaims: []*api.NodeClaim{claim("claim-a", claimNode("n1")), claim("claim-b", claimNode("n1"))}},
			`NodeClaim claim-b: status.nodeName: Node "n1" already belongs to NodeClaim claim-a`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := snapshot.Take(tc.objs, snapshot.Options{Strict: true})
			require.ErrorIs(t, err, snapshot.ErrInconsistent)
			assert.EqualError(t, err, "snapshot: objects do not fit together: "+tc.want)
			var issue *api.FieldError
			require.ErrorAs(t, err, &issue)
			assert.ErrorIs(t, err, api.ErrInvalid, "an inconsistency is bad input")

			s, err := snapshot.Take(tc.objs, snapshot.Options{})
			require.NoError(t, err, "not strict: listed, not failed")
			require.NotEmpty(t, s.Issues)
			assert.Equal(t, tc.want, s.Issues[0].Detail())
		})
	}
}

// The inputs: what each planner reads, with the caller's memory.
func TestTakeInputs(t *testing.T) {
	pooled := labels(api.LabelNodePool, "default", api.LabelInstanceType, d2, api.LabelZone, "eastus-1", api.LabelCapacityType, "spot")
	nodes := []*corev1.Node{
		node("b-leaving", ready(t0), pooled, deletingNode),
		node("a-ready", ready(t0), pooled),
		node("c-booting", taint(api.TaintKeyUnregistered, corev1.TaintEffectNoExecute)),
	}
	web, ds := pod("web", "b-leaving"), pod("ds", "b-leaving")
	ds.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "ds", Controller: ptr(true)}}
	pending := pod("pending", "")
	remembered := t0.Add(time.Hour)
	s, err := snapshot.Take(snapshot.Objects{Nodes: nodes, Pods: []*corev1.Pod{web, ds, pending}, NodePools: pools()},
		snapshot.Options{Now: t0, Memory: snapshot.Memory{LastPodEvents: map[string]time.Time{"a-ready": remembered},
			Nominated: sets.New("a-ready"), Disrupting: sets.New("b-leaving")}})
	require.NoError(t, err)
	require.Len(t, s.Nodes, 3)
	assert.Equal(t, "a-ready", s.Nodes[0].Node.Node.Name, "sorted by name")
	assert.NotEmpty(t, s.Nodes[0].Node.Node.Status.Capacity, "a node described by labels gets its instance type's resources")
	assert.Empty(t, nodes[1].Status.Capacity, "on a copy")

	pin := s.ProvisionerInput(provisioner.Options{Seed: 3})
	assert.Equal(t, uint64(3), pin.Options.Seed)
	require.Len(t, pin.Nodes, 1, "registered and not deleting")
	assert.Equal(t, "a-ready", pin.Nodes[0].Node.Name)
	require.Len(t, pin.Pods, 2, "pending, then the pods of the deleting node")
	assert.Equal(t, "pending", pin.Pods[0].Name)
	assert.Equal(t, "web", pin.Pods[1].Name)
	assert.Empty(t, pin.Pods[1].Spec.NodeName)
	assert.Equal(t, "b-leaving", web.Spec.NodeName, "the input pod is not modified")

	cin := s.ConsolidationInput(consolidation.Options{AllowSplit: true})
	assert.Equal(t, t0, cin.Now)
	assert.True(t, cin.Options.AllowSplit)
	require.Len(t, cin.Nodes, 2, "the unregistered node is left out")
	assert.Equal(t, remembered, cin.Nodes[0].LastPodEventAt)
	assert.True(t, cin.Nodes[0].Nominated)
	assert.True(t, cin.Nodes[1].Deleting)
	assert.Equal(t, []*corev1.Pod{pending}, cin.PendingPods)
}

func TestWorkloadPods(t *testing.T) {
	deployment := func(name string, replicas int32) runtime.Object {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "apps"}}
		d.Spec.Replicas = &replicas
		d.Spec.Template.Labels = map[string]string{"app": name}
		return d
	}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "batch"}}
	pods, err := snapshot.WorkloadPods([]runtime.Object{deployment("web", 2), job}, 0)
	require.NoError(t, err)
	require.Len(t, pods, 3, "a Job without parallelism runs one pod")
	assert.Equal(t, "web-1", pods[1].Name)
	assert.Equal(t, "apps", pods[1].Namespace)
	assert.Equal(t, "web", pods[1].Labels["app"])
	assert.Equal(t, "batch-0", pods[2].Name)

	tests := []struct {
		name      string
		workloads []runtime.Object
		max       int64
		want      string
		sentinel  error
	}{
		{"ten million replicas", []runtime.Object{deployment("huge", 10_000_000)}, 0,
			"Deployment apps/huge: spec.replicas: 10000000 pods would make 10000000 in all, more than the 100000 allowed", snapshot.ErrTooManyPods},
		{"the bound is over all workloads", []runtime.Object{deployment("a", 3), deployment("b", 3)}, 5,
			"Deployment apps/b: spec.replicas: 3 pods would make 6 in all, more than the 5 allowed", snapshot.ErrTooManyPods},
		{"negative", []runtime.Object{deployment("neg", -1)}, 0, "Deployment apps/neg: spec.replicas: must not be negative, got -1", snapshot.ErrBadWorkload},
		{"not a workload", []runtime.Object{&corev1.Pod{}}, 0, "*v1.Pod has no replicas", snapshot.ErrBadWorkload},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pods, err := snapshot.WorkloadPods(tc.workloads, tc.max)
			require.Error(t, err)
			assert.True(t, errors.Is(err, tc.sentinel), err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Nil(t, pods)
		})
	}
}

// napkit's deletion-candidate taint is advice to kube-scheduler: the planners' nodes are read
// without it (on a copy), every other taint kept.
func TestTakeDropsDeletionCandidateTaint(t *testing.T) {
	pooled := labels(api.LabelNodePool, "default", api.LabelInstanceType, d2, api.LabelZone, "eastus-1", api.LabelCapacityType, "spot")
	marked := node("a-marked", ready(t0), pooled, taint("dedicated", corev1.TaintEffectNoSchedule),
		taint(api.TaintKeyDeletionCandidate, corev1.TaintEffectPreferNoSchedule))
	plain := node("b-plain", ready(t0), pooled, taint("dedicated", corev1.TaintEffectNoSchedule))
	s, err := snapshot.Take(snapshot.Objects{Nodes: []*corev1.Node{marked, plain}, NodePools: pools()}, snapshot.Options{Now: t0})
	require.NoError(t, err)
	cin := s.ConsolidationInput(consolidation.Options{})
	require.Len(t, cin.Nodes, 2)
	want := []corev1.Taint{{Key: "dedicated", Effect: corev1.TaintEffectNoSchedule}}
	assert.Equal(t, want, cin.Nodes[0].Node.Spec.Taints, "the marked node, for consolidation")
	assert.Equal(t, want, cin.Nodes[1].Node.Spec.Taints, "the plain node")
	pin := s.ProvisionerInput(provisioner.Options{})
	require.Len(t, pin.Nodes, 2)
	assert.Equal(t, want, pin.Nodes[0].Node.Spec.Taints, "the marked node, for the provisioner")
	assert.Len(t, marked.Spec.Taints, 2, "the input node is not modified")
}
