package controller

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/provisioner"
)

// orphanInput4 is a batch on 4-core nodes (Standard_D4s_v3, about 3.8 cores allocatable): two
// 1.5-core pods and one 3-core pod. The plan packs the two small pods on one node and the large
// pod on another; kube-scheduler's LeastAllocated puts the small pods one per node, leaving
// neither room for the large one.
func orphanInput4(t *testing.T, cpus ...string) provisioner.Input {
	t.Helper()
	build, err := NewCatalogue("eastus", api.DefaultClusterNetwork(), launch.NewUnavailableOfferings(time.Now))
	require.NoError(t, err)
	class := &api.AKSNodeClass{}
	class.Default()
	cat, err := build(class)
	require.NoError(t, err)
	it, ok := cat.Find("Standard_D4s_v3")
	require.True(t, ok)
	in := provisioner.Input{NodePools: []provisioner.NodePoolInput{{NodePool: poolOf("default", "default"),
		InstanceTypes: []*instancetype.InstanceType{it}}}}
	for i, cpu := range cpus {
		pod := newPod("p"+string(rune('a'+i)), cpuRequest(cpu))
		pod.CreationTimestamp = metav1.NewTime(testNow.Add(time.Duration(i) * time.Second))
		pod.Spec.Containers[len(pod.Spec.Containers)-1].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("1Gi")
		in.Pods = append(in.Pods, pod)
	}
	return in
}

func TestCoverOrphans(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cpus    []string
		claims  int      // before the replay
		want    []string // pods per claim after it
		reserve []string // pods per reserve claim
	}{
		{name: "the large pod gets a reserve node", cpus: []string{"1500m", "1500m", "3"}, claims: 2,
			want: []string{"default/pa", "default/pb"}, reserve: []string{"default/pc"}},
		{name: "no orphan: the plan stays", cpus: []string{"1", "1", "1"}, claims: 1,
			want: []string{"default/pa,default/pb,default/pc"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			in := orphanInput4(t, tc.cpus...)
			plan, err := provisioner.Solve(in)
			require.NoError(t, err)
			require.Len(t, plan.NodeClaims, tc.claims)
			reserve, err := e.c.coverOrphans(in, plan)
			require.NoError(t, err)
			assert.ElementsMatch(t, tc.want, podLists(plan.NodeClaims))
			assert.ElementsMatch(t, tc.reserve, podLists(reserve))
		})
	}
}

func podLists(claims []provisioner.NodeClaim) []string {
	var out []string
	for _, nc := range claims {
		out = append(out, strings.Join(nc.Pods, ","))
	}
	return out
}

// TestReserveWait: a reserve claim's node is held back while kube-scheduler is still placing the
// batch on its other nodes, and released once they are initialized and the batch's pending pods
// stopped going down, when none is pending, or at the cap.
func TestReserveWait(t *testing.T) {
	t.Parallel()
	initAt := withCondition(api.ConditionInitialized, metav1.ConditionTrue, "Initialized", testNow)
	tests := []struct {
		name     string
		reserve  bool
		othersUp bool
		pending  bool          // a pod of the batch is still unbound
		orphans  int           // pods the reserve was planned for
		steady   time.Duration // how long the pending count has not moved
		age      time.Duration // since the batch
		want     time.Duration
	}{
		{name: "not a reserve", want: 0},
		{name: "others still booting", reserve: true, pending: true, steady: time.Minute, age: 10 * time.Second, want: reservePoll},
		{name: "kube-scheduler still binding", reserve: true, othersUp: true, pending: true, steady: time.Second, age: 20 * time.Second, want: reservePoll},
		{name: "stalled: released", reserve: true, othersUp: true, pending: true, steady: reserveStall, age: 20 * time.Second, want: 0},
		{name: "no more pending than the reserve's pods: released", reserve: true, othersUp: true, pending: true, orphans: 1,
			steady: time.Second, age: 20 * time.Second, want: 0},
		{name: "as many pending, others booting", reserve: true, pending: true, orphans: 1, steady: time.Minute, age: 10 * time.Second,
			want: reservePoll},
		{name: "nothing pending: released", reserve: true, age: time.Second, want: 0},
		{name: "cap: released although others boot", reserve: true, pending: true, age: 2 * time.Minute, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			other := testClaim("other", "default", "", launched())
			if tc.othersUp {
				other = testClaim("other", "default", "", launched(), registered(), initAt)
			}
			e.addClaim(t, other, testClaim("spare", "default", "", launched()))
			if tc.pending {
				e.addPod(t, newPod("web"))
			} else {
				e.addPod(t, newPod("web", boundTo("n1")))
			}
			if tc.reserve {
				e.c.reserved.add([]string{"spare"}, []string{"other"}, []string{"default/web"}, tc.orphans, testNow.Add(-tc.age))
				b := e.c.reserved.batches["spare"]
				b.pending, b.changed = e.c.pendingOf(b.pods), testNow.Add(-tc.steady)
			}
			assert.Equal(t, tc.want, e.c.reserveWait(e.c.claim("spare")))
		})
	}
}
