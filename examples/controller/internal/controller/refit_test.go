package controller

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/provisioner"
)

// TestRefit: a claim the replay gave other pods asks for its DaemonSets' room plus those pods, and
// keeps in its launch list only the sizes that hold them (and always the chosen one).
func TestRefit(t *testing.T) {
	t.Parallel()
	in := orphanInput4(t, "1500m", "1500m", "3")
	it := in.NodePools[0].InstanceTypes[0] // Standard_D4s_v3, ~3.8 cores allocatable
	byKey := map[string]*corev1.Pod{}
	for _, pod := range in.Pods {
		byKey[pod.Namespace+"/"+pod.Name] = pod
	}
	planned := []provisioner.NodeClaim{{
		NodePool: "default", InstanceType: it.Name, InstanceTypeOptions: []string{it.Name, "Standard_Unknown"},
		Allocatable: it.Allocatable(), Pods: []string{"default/pa"},
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1700m"), corev1.ResourceMemory: resource.MustParse("1124Mi"),
			corev1.ResourcePods: resource.MustParse("2")},
	}}
	rc := newReplayClaims(planned, byKey)
	rc.planned[0].Pods = []string{"default/pa", "default/pb"} // the replay's placement
	rc.refit(in, byKey)

	got := rc.planned[0]
	// DaemonSets' room: 200m, 100Mi and one pod slot (the old requests less pa's); plus pa and pb.
	assert.Equal(t, "3200m", quantity(got.Requests, corev1.ResourceCPU))
	assert.Equal(t, int64(100<<20+2<<30), got.Requests.Memory().Value())
	assert.Equal(t, "3", quantity(got.Requests, corev1.ResourcePods))
	assert.Equal(t, []string{it.Name}, got.InstanceTypeOptions, "an unknown size is dropped, the chosen kept")
	assert.Equal(t, []string{it.Name, "Standard_Unknown"}, planned[0].InstanceTypeOptions, "the plan's list is shared: not changed")

	rc.planned[0].Pods = []string{"default/pa", "default/pb", "default/pc"} // more than any size holds
	rc.planned[0].InstanceTypeOptions = []string{it.Name}
	rc.refit(in, byKey)
	assert.Equal(t, []string{it.Name}, rc.planned[0].InstanceTypeOptions, "the chosen size is never dropped")
}

func quantity(l corev1.ResourceList, name corev1.ResourceName) string {
	q := l[name]
	return q.String()
}

// TestReplayQueueOrder: the replay's queue is by creation, then by resourceVersion as a number
// (creation has a second's resolution), a version that is not a number after the numbers; the
// same queue whatever order the pods come in (the comparison is a total order).
func TestReplayQueueOrder(t *testing.T) {
	t.Parallel()
	at := metav1.NewTime(testNow)
	later := metav1.NewTime(testNow.Add(1e9))
	pods := []*corev1.Pod{
		newPod("z-first", withVersion("9"), createdAt(at)), newPod("a-second", withVersion("10"), createdAt(at)),
		newPod("b-opaque", withVersion("x"), createdAt(at)), newPod("c-late", withVersion("2"), createdAt(later)),
	}
	byKey := map[string]*corev1.Pod{}
	var keys []string
	for _, p := range pods {
		key := p.Namespace + "/" + p.Name
		byKey[key] = p
		keys = append(keys, key)
	}
	want := []string{"z-first", "a-second", "b-opaque", "c-late"}
	for i := range 50 {
		// rc.pods is a map: its order differs from run to run, and so from claims built anew.
		rand.New(rand.NewPCG(uint64(i), 0)).Shuffle(len(keys), func(a, b int) { keys[a], keys[b] = keys[b], keys[a] })
		rc := newReplayClaims([]provisioner.NodeClaim{{Pods: slices.Clone(keys)}}, byKey)
		var names []string
		for _, p := range rc.queue(byKey) {
			names = append(names, p.Name)
		}
		require.Equal(t, want, names, "9 before 10 (numbers, not strings), the opaque version after both")
	}
	assert.Equal(t, 1, compareVersions("x", "10"))
	assert.Equal(t, -1, compareVersions("10", "x"))
	assert.Equal(t, -1, compareVersions("9", "10"))
	assert.Equal(t, -1, compareVersions("x", "y"))
}

func withVersion(v string) podOpt    { return func(p *corev1.Pod) { p.ResourceVersion = v } }
func createdAt(t metav1.Time) podOpt { return func(p *corev1.Pod) { p.CreationTimestamp = t } }
