package provisioner

import (
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// Scenarios 12-25 and 37-38 of karpenter-core §5.

func amd64Pods(n int, prefix, memory string) []*corev1.Pod {
	return pods(n, prefix, "", memory, withNodeSelector(api.LabelArch, api.ArchAMD64))
}

// Row 12: "should create new nodes when a node is at capacity".
func TestScenario12NewNodesAtCapacity(t *testing.T) {
	in := Input{Pods: amd64Pods(40, "p", "1.8G"), NodePools: []NodePoolInput{testPool("default")}}
	plan := solveOrFail(t, in)
	if got := claimsByType(plan); len(plan.NodeClaims) != 20 || got["default-instance-type"] != 20 {
		t.Fatalf("got %d nodes %v, want 20 default-instance-type", len(plan.NodeClaims), got)
	}
}

// Row 13: "should pack small and large pods together".
func TestScenario13PackSmallAndLarge(t *testing.T) {
	in := Input{Pods: append(amd64Pods(40, "large", "1.8G"), amd64Pods(20, "small", "400M")...), NodePools: []NodePoolInput{testPool("default")}}
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 20 {
		t.Fatalf("got %d nodes %v, want 20", len(plan.NodeClaims), claimsByType(plan))
	}
}

// Row 14: "should pack nodes tightly": instance types of 1 to 5 vCPU.
func TestScenario14PackTightly(t *testing.T) {
	var types []*instancetype.InstanceType
	for i := 1; i <= 5; i++ {
		types = append(types, fakeType(typeSpec{name: fmt.Sprintf("cpu-%d", i), cpu: fmt.Sprint(i), memory: "8Gi"}))
	}
	in := Input{Pods: []*corev1.Pod{pod("big", "4.5", ""), pod("small", "1", "")},
		NodePools: []NodePoolInput{{NodePool: nodePool("default"), InstanceTypes: types}}}
	plan := solveOrFail(t, in)
	got := claimsByType(plan)
	if len(plan.NodeClaims) != 2 || got["cpu-5"] != 1 || got["cpu-2"] != 1 {
		t.Fatalf("got %v, want one cpu-5 and one cpu-2", got)
	}
}

// Row 15: "should take pod runtime class into consideration".
func TestScenario15RuntimeClassOverhead(t *testing.T) {
	in := Input{Pods: []*corev1.Pod{pod("p", "1", "", withOverhead("2"))}, NodePools: []NodePoolInput{testPool("default")}}
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 1 || plan.NodeClaims[0].InstanceType != "default-instance-type" {
		t.Fatalf("got %v, want default-instance-type", claimsByType(plan))
	}
}

// Row 16: "should relax to use lighter weights".
func TestScenario16RelaxLighterWeights(t *testing.T) {
	for _, policy := range []PreferencePolicy{PreferenceRespect, PreferenceCostAware} {
		t.Run(string(policy), func(t *testing.T) {
			p := pod("p", "1", "",
				withPreferredNode(100, nsr(api.LabelZone, corev1.NodeSelectorOpIn, "invalid")),
				withPreferredNode(50, nsr(api.LabelZone, corev1.NodeSelectorOpIn, "test-zone-2")),
				withPreferredNode(1, nsr(api.LabelZone, corev1.NodeSelectorOpIn, "test-zone-1")))
			in := Input{Pods: []*corev1.Pod{p}, Options: Options{PreferencePolicy: policy},
				NodePools: []NodePoolInput{testPool("default", req(api.LabelZone, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2"))}}
			plan := solveOrFail(t, in)
			if len(plan.NodeClaims) != 1 || plan.NodeClaims[0].Zone != "test-zone-2" {
				t.Fatalf("got %+v, want a node in test-zone-2", plan.NodeClaims)
			}
		})
	}
}

// Row 17: "should not relax the final term".
func TestScenario17DoNotRelaxFinalTerm(t *testing.T) {
	p := pod("p", "1", "", withRequiredTerms(term(nsr(api.LabelZone, corev1.NodeSelectorOpIn, "invalid"))))
	in := Input{Pods: []*corev1.Pod{p}, NodePools: []NodePoolInput{{NodePool: nodePool("default"), InstanceTypes: eastusTypes(t)}}}
	plan := solveOrFail(t, in)
	if len(plan.Unschedulable) != 1 || plan.Unschedulable[0].Code != CodeRequirements {
		t.Fatalf("want the pod pending with %s, got %+v", CodeRequirements, plan.Unschedulable)
	}
	if !strings.Contains(plan.Unschedulable[0].Reason, "topology.kubernetes.io/zone") || !strings.Contains(plan.Unschedulable[0].Reason, "eastus-1") {
		t.Fatalf("reason should name the key and the zones offered: %s", plan.Unschedulable[0].Reason)
	}
}

// Row 18: "should schedule pods with the same host port to different nodes".
func TestScenario18SameHostPort(t *testing.T) {
	in := Input{Pods: pods(2, "p", "100m", "", withHostPort(8080)), NodePools: []NodePoolInput{{NodePool: nodePool("default"), InstanceTypes: eastusTypes(t)}}}
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 2 {
		t.Fatalf("got %d nodes, want 2", len(plan.NodeClaims))
	}
}

func daemonSet(name, cpu, memory string, ports ...int32) *appsv1.DaemonSet {
	p := pod(name, cpu, memory)
	for _, port := range ports {
		withHostPort(port)(p)
	}
	return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: p.Spec}}}
}

// Row 19: "should account for daemonsets".
func TestScenario19DaemonSetOverhead(t *testing.T) {
	in := Input{Pods: []*corev1.Pod{pod("p", "1", "1Gi")}, DaemonSets: []*appsv1.DaemonSet{daemonSet("ds", "2", "2Gi")},
		NodePools: []NodePoolInput{testPool("default")}}
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 1 || plan.NodeClaims[0].InstanceType != "default-instance-type" {
		t.Fatalf("got %v, want default-instance-type", claimsByType(plan))
	}
}

// Row 20: "should account for daemonset hostports".
func TestScenario20DaemonSetHostPort(t *testing.T) {
	in := Input{Pods: []*corev1.Pod{pod("p", "100m", "", withHostPort(8080))}, DaemonSets: []*appsv1.DaemonSet{daemonSet("ds", "100m", "", 8080)},
		NodePools: []NodePoolInput{{NodePool: nodePool("default"), InstanceTypes: eastusTypes(t)}}}
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 0 || len(plan.Unschedulable) != 1 || plan.Unschedulable[0].Code != CodeHostPort {
		t.Fatalf("want no node and the pod pending with %s, got %d nodes, %+v", CodeHostPort, len(plan.NodeClaims), plan.Unschedulable)
	}
}

func withLimits(np NodePoolInput, limits corev1.ResourceList) NodePoolInput {
	np.NodePool.Spec.Limits = limits
	return np
}

// Row 21: "should partially schedule if limits would be exceeded".
func TestScenario21PartialLimits(t *testing.T) {
	in := Input{
		Pods:      pods(2, "p", "1.5", "", withLabels(appTest...), withAntiAffinity(api.LabelHostname, selector(appTest...))),
		NodePools: []NodePoolInput{withLimits(testPool("default"), corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")})},
	}
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 1 || len(plan.Unschedulable) != 1 || plan.Unschedulable[0].Code != CodeLimits {
		t.Fatalf("want 1 node and 1 pod pending on limits, got %d nodes, %+v", len(plan.NodeClaims), plan.Unschedulable)
	}
	t.Log(plan.Unschedulable[0].Reason)
}

// Row 22: "should not schedule if limits would be exceeded (node)": in one batch, and one pod per
// solve with the earlier claims in flight.
func TestScenario22NodeLimit(t *testing.T) {
	limits := corev1.ResourceList{resourceNodes: resource.MustParse("2")}
	anti := func(name string) *corev1.Pod {
		return pod(name, "100m", "", withLabels(appTest...), withAntiAffinity(api.LabelHostname, selector(appTest...)))
	}
	in := Input{Pods: []*corev1.Pod{anti("a"), anti("b"), anti("c")}, NodePools: []NodePoolInput{withLimits(testPool("default"), limits)}}
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 2 || len(plan.Unschedulable) != 1 || plan.Unschedulable[0].Code != CodeLimits {
		t.Fatalf("batch: want 2 nodes and 1 pending on limits, got %d, %+v", len(plan.NodeClaims), plan.Unschedulable)
	}
	var flight []InFlightClaim
	for i, name := range []string{"a", "b", "c"} {
		in := Input{Pods: []*corev1.Pod{anti(name)}, InFlight: flight, NodePools: []NodePoolInput{withLimits(testPool("default"), limits)}}
		plan := solveOrFail(t, in)
		if i < 2 {
			if len(plan.NodeClaims) != 1 {
				t.Fatalf("loop %d: want a new node, got %+v", i, plan)
			}
			nc := plan.NodeClaims[0]
			bound := anti(name)
			flight = append(flight, InFlightClaim{Name: fmt.Sprintf("claim-%d", i), NodePool: nc.NodePool, InstanceType: nc.InstanceType,
				Zone: nc.Zone, CapacityType: nc.CapacityType, Pods: []*corev1.Pod{bound}})
			continue
		}
		if len(plan.NodeClaims) != 0 || len(plan.Unschedulable) != 1 || plan.Unschedulable[0].Code != CodeLimits {
			t.Fatalf("loop 3: want the pod pending on limits, got %+v", plan)
		}
	}
}

// Row 23: "should schedule to the nodepool with the highest priority always".
func TestScenario23HighestWeight(t *testing.T) {
	weighted := func(name string, w int32) NodePoolInput {
		np := NodePoolInput{NodePool: nodePool(name), InstanceTypes: eastusTypes(t)}
		if w > 0 {
			np.NodePool.Spec.Weight = &w
		}
		return np
	}
	in := Input{Pods: pods(3, "p", "1", ""), NodePools: []NodePoolInput{weighted("a", 0), weighted("b", 20), weighted("c", 100)}}
	plan := solveOrFail(t, in)
	for _, nc := range plan.NodeClaims {
		if nc.NodePool != "c" {
			t.Fatalf("claim %s in NodePool %s, want c", nc.Name, nc.NodePool)
		}
	}
	if len(plan.Unschedulable) != 0 {
		t.Fatalf("unschedulable: %+v", plan.Unschedulable)
	}
}

// Equal-weight NodePools are tried by name descending, as Karpenter core orders them
// (upstream: kubernetes-sigs/karpenter pkg/utils/nodepool/nodepool.go, OrderByWeight). Pool "a"
// offers only a cheap size and pool "b" only a dearer one, so a cost-first order would pick "a";
// Karpenter picks "b", and so must napkit. Unweighted and explicitly weighted ties both count.
func TestEqualWeightNodePoolsByNameDescending(t *testing.T) {
	cheap := fakeType(typeSpec{name: "cheap", cpu: "4", memory: "16Gi", price: 0.1})
	dear := fakeType(typeSpec{name: "dear", cpu: "4", memory: "16Gi", price: 0.5})
	for _, w := range []int32{0, 10} {
		t.Run(fmt.Sprintf("weight %d", w), func(t *testing.T) {
			poolOf := func(name string, it *instancetype.InstanceType) NodePoolInput {
				np := NodePoolInput{NodePool: nodePool(name), InstanceTypes: []*instancetype.InstanceType{it}}
				if w > 0 {
					np.NodePool.Spec.Weight = &w
				}
				return np
			}
			in := Input{Pods: pods(3, "p", "1", ""), NodePools: []NodePoolInput{poolOf("a", cheap), poolOf("b", dear)}}
			plan := solveOrFail(t, in)
			if len(plan.NodeClaims) == 0 {
				t.Fatalf("no NodeClaims: %+v", plan.Unschedulable)
			}
			for _, nc := range plan.NodeClaims {
				if nc.NodePool != "b" || nc.InstanceType != "dear" {
					t.Fatalf("claim %s in NodePool %s (%s), want b (dear)", nc.Name, nc.NodePool, nc.InstanceType)
				}
			}
		})
	}
}

func minValuesPool(maxTypes int) Input {
	two := 2
	types := []*instancetype.InstanceType{
		fakeType(typeSpec{name: "type-a", cpu: "1", memory: "1Gi", price: 0.52}),
		fakeType(typeSpec{name: "type-b", cpu: "4", memory: "4Gi", price: 1.00}),
	}
	r := req(api.LabelInstanceType, corev1.NodeSelectorOpIn, "type-a", "type-b")
	r.MinValues = &two
	return Input{Pods: pods(2, "p", "900m", "900Mi"), Options: Options{MaxInstanceTypes: maxTypes},
		NodePools: []NodePoolInput{{NodePool: nodePool("default", r), InstanceTypes: types}}}
}

// Row 24: "should schedule respecting the minValues from instance-type requirements".
func TestScenario24MinValues(t *testing.T) {
	in := minValuesPool(0)
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 2 {
		t.Fatalf("got %d nodes, want 2", len(plan.NodeClaims))
	}
	for _, nc := range plan.NodeClaims {
		if len(nc.InstanceTypeOptions) < 2 {
			t.Fatalf("claim %s lists %v, want at least 2 types", nc.Name, nc.InstanceTypeOptions)
		}
	}
}

// Row 25: "schedule should fail if minimum number of InstanceTypes is not met as per the minValues
// in the requirement after truncation".
func TestScenario25MinValuesAfterTruncation(t *testing.T) {
	in := minValuesPool(1)
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 0 || len(plan.Unschedulable) != 2 || plan.Unschedulable[0].Code != CodeMinValues {
		t.Fatalf("want both pods pending with %s, got %d nodes, %+v", CodeMinValues, len(plan.NodeClaims), plan.Unschedulable)
	}
}

// Row 37: cluster-autoscaler "simple resource-based binpacking".
func TestScenario37SimpleBinpacking(t *testing.T) {
	it := fakeType(typeSpec{name: "node", cpu: "1000m", memory: "2000", overhead: corev1.ResourceList{}})
	in := Input{Pods: pods(10, "p", "350m", "1000"), NodePools: []NodePoolInput{{NodePool: nodePool("default"), InstanceTypes: []*instancetype.InstanceType{it}}}}
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 5 {
		t.Fatalf("got %d nodes, want 5", len(plan.NodeClaims))
	}
}

// Row 38: cluster-autoscaler "hostport conflict forces pod-per-node" and "hostname topology
// spreading with maxSkew=2 forces 2 pods/node".
func TestScenario38HostPortAndHostnameSpread(t *testing.T) {
	it := fakeType(typeSpec{name: "node", cpu: "16", memory: "64Gi"})
	pool := []NodePoolInput{{NodePool: nodePool("default"), InstanceTypes: []*instancetype.InstanceType{it}}}
	plan := solveOrFail(t, Input{Pods: pods(8, "p", "100m", "", withHostPort(8080)), NodePools: pool})
	if len(plan.NodeClaims) != 8 {
		t.Fatalf("host port: got %d nodes, want 8", len(plan.NodeClaims))
	}
	plan = solveOrFail(t, Input{Pods: spreadPods(8, "p", "100m", api.LabelHostname, 2), NodePools: pool})
	if len(plan.NodeClaims) != 4 {
		t.Fatalf("hostname spread: got %d nodes, want 4", len(plan.NodeClaims))
	}
}
