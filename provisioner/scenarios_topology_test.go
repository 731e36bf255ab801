package provisioner

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// Scenarios 1-11 of karpenter-core §5 (topology_test.go), on Karpenter's fake instance types.

var appTest = []string{"app", "test"}

func spreadPods(n int, prefix, cpu string, key string, skew int32, opts ...podOpt) []*corev1.Pod {
	opts = append([]podOpt{withLabels(appTest...), withSpread(key, skew, corev1.DoNotSchedule, selector(appTest...))}, opts...)
	return pods(n, prefix, cpu, "", opts...)
}

func wantCounts(t *testing.T, got map[string]int, want ...int) {
	t.Helper()
	if s := sortedCounts(got); !slices.Equal(s, want) {
		t.Fatalf("domain counts %v (%v), want %v", s, got, want)
	}
}

// Row 1: "should balance pods across zones (match labels)".
func TestScenario01BalanceAcrossZones(t *testing.T) {
	in := Input{Pods: spreadPods(4, "p", "100m", api.LabelZone, 1), NodePools: []NodePoolInput{testPool("default")}}
	plan := solveOrFail(t, in)
	wantCounts(t, zoneCounts(in, plan, "p"), 1, 1, 2)
}

// fullNode is an existing node in zone with one bound pod that leaves no room.
func fullNode(name, zone string, bound ...*corev1.Pod) ExistingNode {
	return node(name, zone, "1200m", "4Gi", bound...)
}

// Row 2: "should not violate max-skew when unsat = do not schedule".
func TestScenario02MaxSkewDoNotSchedule(t *testing.T) {
	in := Input{
		Nodes:     []ExistingNode{fullNode("zone1", "test-zone-1", pod("p-pinned", "1100m", "", withLabels(appTest...)))},
		Pods:      spreadPods(10, "p", "1", api.LabelZone, 1),
		NodePools: []NodePoolInput{testPool("default", req(api.LabelZone, corev1.NodeSelectorOpIn, "test-zone-2", "test-zone-3"))},
	}
	plan := solveOrFail(t, in)
	wantCounts(t, zoneCounts(in, plan, "p"), 1, 2, 2)
	if got := unschedulableCodes(plan); got[CodeTopologySpread] != 6 {
		t.Fatalf("unschedulable %v, want 6 TopologySpread", got)
	}
}

// Row 3: "should schedule to the non-minimum domain if its all that's available".
func TestScenario03NonMinimumDomain(t *testing.T) {
	in := Input{
		Nodes: []ExistingNode{
			fullNode("zone1", "test-zone-1", pod("p-a", "1100m", "", withLabels(appTest...))),
			fullNode("zone2", "test-zone-2", pod("p-b", "1100m", "", withLabels(appTest...))),
		},
		Pods:      spreadPods(10, "p", "1", api.LabelZone, 5),
		NodePools: []NodePoolInput{testPool("default", req(api.LabelZone, corev1.NodeSelectorOpIn, "test-zone-3"))},
	}
	plan := solveOrFail(t, in)
	got := zoneCounts(in, plan, "p")
	if got["test-zone-1"] != 1 || got["test-zone-2"] != 1 || got["test-zone-3"] != 6 {
		t.Fatalf("counts %v, want {1,1,6}", got)
	}
	if len(plan.Unschedulable) != 4 {
		t.Fatalf("%d unschedulable, want 4", len(plan.Unschedulable))
	}
}

// Row 4: "should only schedule to minimum domains if already violating max skew".
func TestScenario04OnlyMinimumDomains(t *testing.T) {
	var bound []*corev1.Pod
	for i := range 3 {
		bound = append(bound, pod(fmt.Sprintf("p-old-%d", i), "1", "", withLabels(appTest...)))
	}
	in := Input{
		Nodes:     []ExistingNode{node("zone1", "test-zone-1", "3100m", "4Gi", bound...)},
		Pods:      spreadPods(3, "p", "1", api.LabelZone, 1),
		NodePools: []NodePoolInput{testPool("default")},
	}
	plan := solveOrFail(t, in)
	got := zoneCounts(in, plan, "p")
	if got["test-zone-1"] != 3 {
		t.Fatalf("counts %v, want zone-1 to stay at 3", got)
	}
	wantCounts(t, got, 1, 2, 3)
}

// Row 5: "should respect minDomains constraints".
func TestScenario05MinDomains(t *testing.T) {
	in := Input{
		Pods:      spreadPods(3, "p", "1", api.LabelZone, 1, withMinDomains(3)),
		NodePools: []NodePoolInput{testPool("default", req(api.LabelZone, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2"))},
	}
	plan := solveOrFail(t, in)
	wantCounts(t, zoneCounts(in, plan, "p"), 1, 1)
	if got := unschedulableCodes(plan); got[CodeTopologySpread] != 1 {
		t.Fatalf("unschedulable %v, want 1 TopologySpread", got)
	}
}

// Row 6: "satisfied minDomains constraints (equal) should allow expected pod scheduling".
func TestScenario06MinDomainsSatisfied(t *testing.T) {
	in := Input{Pods: spreadPods(11, "p", "1", api.LabelZone, 1, withMinDomains(3)), NodePools: []NodePoolInput{testPool("default")}}
	plan := solveOrFail(t, in)
	wantCounts(t, zoneCounts(in, plan, "p"), 3, 4, 4)
}

// Row 7: "should balance pods across nodes" / "should balance pods on the same hostname up to maxskew".
func TestScenario07HostnameSpread(t *testing.T) {
	for _, tc := range []struct {
		skew      int32
		wantNodes int
	}{{1, 4}, {4, 1}} {
		t.Run(fmt.Sprintf("maxSkew%d", tc.skew), func(t *testing.T) {
			in := Input{Pods: spreadPods(4, "p", "100m", api.LabelHostname, tc.skew), NodePools: []NodePoolInput{testPool("default")}}
			plan := solveOrFail(t, in)
			if len(plan.NodeClaims) != tc.wantNodes {
				t.Fatalf("%d nodes, want %d", len(plan.NodeClaims), tc.wantNodes)
			}
			for _, nc := range plan.NodeClaims {
				if len(nc.Pods) != 4/tc.wantNodes {
					t.Fatalf("node %s holds %d pods, want %d", nc.Name, len(nc.Pods), 4/tc.wantNodes)
				}
			}
		})
	}
}

// Row 8: "should respect self pod affinity (hostname)".
func TestScenario08SelfAffinityHostname(t *testing.T) {
	in := Input{
		Pods:      pods(3, "p", "500m", "", withLabels(appTest...), withPodAffinity(api.LabelHostname, selector(appTest...))),
		NodePools: []NodePoolInput{testPool("default")},
	}
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 1 || len(plan.NodeClaims[0].Pods) != 3 {
		t.Fatalf("want all 3 pods on one node, got %+v", plan.NodeClaims)
	}
}

// Row 9: "should separate nodes using simple pod anti-affinity on hostname" (×10, with the pods
// in both orders and different seeds).
func TestScenario09AntiAffinityHostname(t *testing.T) {
	for i := range 10 {
		a := pod("a", "500m", "", withLabels("security", "s2"))
		b := pod("b", "500m", "", withAntiAffinity(api.LabelHostname, selector("security", "s2")))
		ps := []*corev1.Pod{a, b}
		if i%2 == 1 {
			ps = []*corev1.Pod{b, a}
		}
		in := Input{Pods: ps, NodePools: []NodePoolInput{{NodePool: nodePool("default"), InstanceTypes: eastusTypes(t)}},
			Options: Options{Seed: uint64(i)}}
		plan := solveOrFail(t, in)
		w := where(in, plan)
		if len(plan.Unschedulable) != 0 || w["default/a"][api.LabelHostname] == w["default/b"][api.LabelHostname] {
			t.Fatalf("run %d: pods share a node or are unschedulable: %+v", i, plan.Unschedulable)
		}
	}
}

// Row 10: "should not violate pod anti-affinity on zone".
func TestScenario10AntiAffinityZone(t *testing.T) {
	var ps []*corev1.Pod
	for i, z := range testZones {
		ps = append(ps, pod(fmt.Sprintf("pinned-%d", i), "2", "", withLabels("security", "s2"), withNodeSelector(api.LabelZone, z)))
	}
	ps = append(ps, pod("anti", "1", "", withAntiAffinity(api.LabelZone, selector("security", "s2"))))
	in := Input{Pods: ps, NodePools: []NodePoolInput{testPool("default")}}
	plan := solveOrFail(t, in)
	if len(plan.Unschedulable) != 1 || plan.Unschedulable[0].Pod != "default/anti" || plan.Unschedulable[0].Code != CodePodAntiAffinity {
		t.Fatalf("want only the anti-affinity pod pending with PodAntiAffinity, got %+v", plan.Unschedulable)
	}
}

// Row 11: "should not violate pod anti-affinity on zone (other schedules first)": the labelled pod's
// node may launch in any zone, so the anti-affine pod cannot be placed in this batch.
func TestScenario11AntiAffinityZoneUnknown(t *testing.T) {
	in := Input{
		Pods: []*corev1.Pod{
			pod("labelled", "2", "", withLabels("security", "s2")),
			pod("anti", "1", "", withAntiAffinity(api.LabelZone, selector("security", "s2"))),
		},
		NodePools: []NodePoolInput{testPool("default")},
	}
	plan := solveOrFail(t, in)
	if len(plan.Unschedulable) != 1 || plan.Unschedulable[0].Pod != "default/anti" {
		t.Fatalf("want the anti-affinity pod pending, got %+v", plan.Unschedulable)
	}
	t.Log(plan.Unschedulable[0].Reason)
}
