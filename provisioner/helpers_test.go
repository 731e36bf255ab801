package provisioner

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/requirements"
)

// Test zones of the small explicit catalogue, as Karpenter's fake cloud provider names them.
var testZones = []string{"test-zone-1", "test-zone-2", "test-zone-3"}

// typeSpec describes a hand-made instance type.
type typeSpec struct {
	name      string
	cpu       string // capacity
	memory    string
	pods      int64
	arch      string
	gpus      int64
	spotZones []string
	odZones   []string
	price     float64 // 0: 0.1 per vCPU + 0.1 per GiB
	overhead  corev1.ResourceList
}

// fakeType builds a real instancetype.InstanceType with hand-set capacity and offerings, like
// Karpenter's fake instance types: kube-reserved 100m CPU and 10Mi memory, spot in zones 1-2 and
// on-demand in zones 1-3 unless given.
func fakeType(s typeSpec) *instancetype.InstanceType {
	if s.arch == "" {
		s.arch = api.ArchAMD64
	}
	if s.pods == 0 {
		s.pods = 110
	}
	if s.spotZones == nil && s.odZones == nil {
		s.spotZones, s.odZones = testZones[:2], testZones
	}
	cpu, mem := resource.MustParse(s.cpu), resource.MustParse(s.memory)
	if s.price == 0 {
		s.price = 0.1*float64(cpu.MilliValue())/1000 + 0.1*float64(mem.Value())/(1<<30)
	}
	capacity := corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem,
		corev1.ResourcePods:             *resource.NewQuantity(s.pods, resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi")}
	if s.gpus > 0 {
		capacity["nvidia.com/gpu"] = *resource.NewQuantity(s.gpus, resource.DecimalSI)
	}
	if s.overhead == nil {
		s.overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("10Mi")}
	}
	it := &instancetype.InstanceType{Name: s.name, Capacity: capacity, Overhead: instancetype.Overhead{KubeReserved: s.overhead}}
	var zones, cts []string
	add := func(zone, ct string) {
		it.Offerings = append(it.Offerings, instancetype.Offering{Zone: zone, CapacityType: ct, Price: s.price, Available: true,
			Requirements: requirements.New(
				requirements.NewRequirement(api.LabelZone, corev1.NodeSelectorOpIn, zone),
				requirements.NewRequirement(api.LabelCapacityType, corev1.NodeSelectorOpIn, ct))})
		zones = appendNew(zones, zone)
		cts = appendNew(cts, ct)
	}
	for _, z := range s.spotZones {
		add(z, api.CapacityTypeSpot)
	}
	for _, z := range s.odZones {
		add(z, api.CapacityTypeOnDemand)
	}
	it.Requirements = requirements.New(
		requirements.NewRequirement(api.LabelInstanceType, corev1.NodeSelectorOpIn, s.name),
		requirements.NewRequirement(api.LabelArch, corev1.NodeSelectorOpIn, s.arch),
		requirements.NewRequirement(api.LabelOS, corev1.NodeSelectorOpIn, api.OSLinux),
		requirements.NewRequirement(api.LabelZone, corev1.NodeSelectorOpIn, zones...),
		requirements.NewRequirement(api.LabelCapacityType, corev1.NodeSelectorOpIn, cts...),
	)
	return it
}

func appendNew(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// karpenterFakes are the default fake instance types of Karpenter's tests (karpenter-core §5).
func karpenterFakes() []*instancetype.InstanceType {
	return []*instancetype.InstanceType{
		fakeType(typeSpec{name: "default-instance-type", cpu: "4", memory: "4Gi", pods: 5}),
		fakeType(typeSpec{name: "small-instance-type", cpu: "2", memory: "2Gi", pods: 5}),
		fakeType(typeSpec{name: "arm-instance-type", cpu: "16", memory: "128Gi", arch: api.ArchARM64}),
		fakeType(typeSpec{name: "gpu-vendor-instance-type", cpu: "4", memory: "4Gi", gpus: 2}),
		fakeType(typeSpec{name: "single-pod-instance-type", cpu: "4", memory: "4Gi", pods: 1}),
	}
}

// nodePool builds a NodePool with the given requirements.
func nodePool(name string, reqs ...api.NodeSelectorRequirementWithMinValues) *api.NodePool {
	return &api.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: api.NodePoolSpec{Template: api.NodeClaimTemplate{Spec: api.NodeClaimTemplateSpec{
			Requirements: reqs,
			NodeClassRef: &api.NodeClassReference{Group: api.AzureGroup, Kind: api.KindAKSNodeClass, Name: "default"},
		}}},
	}
}

func req(key string, op corev1.NodeSelectorOperator, values ...string) api.NodeSelectorRequirementWithMinValues {
	return api.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values}
}

type podOpt func(*corev1.Pod)

// pod builds a pending pod with one container requesting cpu and memory.
func pod(name, cpu, memory string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{}}}}},
	}
	if cpu != "" {
		p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		p.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func pods(n int, prefix, cpu, memory string, opts ...podOpt) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = pod(fmt.Sprintf("%s-%d", prefix, i), cpu, memory, opts...)
	}
	return out
}

func withLabels(kv ...string) podOpt {
	return func(p *corev1.Pod) {
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func withNodeSelector(kv ...string) podOpt {
	return func(p *corev1.Pod) {
		if p.Spec.NodeSelector == nil {
			p.Spec.NodeSelector = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
	}
}

func affinity(p *corev1.Pod) *corev1.Affinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	return p.Spec.Affinity
}

func withRequiredTerms(terms ...corev1.NodeSelectorTerm) podOpt {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.NodeAffinity == nil {
			a.NodeAffinity = &corev1.NodeAffinity{}
		}
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: terms}
	}
}

func withPreferredNode(weight int32, reqs ...corev1.NodeSelectorRequirement) podOpt {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.NodeAffinity == nil {
			a.NodeAffinity = &corev1.NodeAffinity{}
		}
		a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.PreferredSchedulingTerm{Weight: weight, Preference: corev1.NodeSelectorTerm{MatchExpressions: reqs}})
	}
}

func term(reqs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: reqs}
}

func nsr(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func selector(kv ...string) *metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &metav1.LabelSelector{MatchLabels: m}
}

func withSpread(key string, skew int32, when corev1.UnsatisfiableConstraintAction, sel *metav1.LabelSelector) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: skew, TopologyKey: key, WhenUnsatisfiable: when, LabelSelector: sel})
	}
}

func withMinDomains(n int32) podOpt {
	return func(p *corev1.Pod) {
		last := &p.Spec.TopologySpreadConstraints[len(p.Spec.TopologySpreadConstraints)-1]
		last.MinDomains = &n
	}
}

func withPodAffinity(key string, sel *metav1.LabelSelector) podOpt {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAffinity == nil {
			a.PodAffinity = &corev1.PodAffinity{}
		}
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
			corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: sel})
	}
}

func withAntiAffinity(key string, sel *metav1.LabelSelector) podOpt {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
			corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: sel})
	}
}

func withPreferredAnti(weight int32, key string, sel *metav1.LabelSelector) podOpt {
	return func(p *corev1.Pod) {
		a := affinity(p)
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: sel}})
	}
}

func withHostPort(port int32) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port})
	}
}

func withTolerations(t ...corev1.Toleration) podOpt {
	return func(p *corev1.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, t...) }
}

func withOverhead(cpu string) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
	}
}

func withRequest(name corev1.ResourceName, q string) podOpt {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Requests[name] = resource.MustParse(q) }
}

// node builds an existing, initialized node in a zone with the given allocatable.
func node(name, zone, cpu, memory string, pods ...*corev1.Pod) ExistingNode {
	alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory),
		corev1.ResourcePods: resource.MustParse("110")}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		api.LabelHostname: name, api.LabelZone: zone, api.LabelArch: api.ArchAMD64, api.LabelOS: api.OSLinux}},
		Status: corev1.NodeStatus{Allocatable: alloc, Capacity: alloc}}
	for _, p := range pods {
		p.Spec.NodeName = name
	}
	return ExistingNode{Node: n, Pods: pods, Initialized: true}
}

func solveOrFail(t interface {
	Helper()
	Fatalf(string, ...any)
}, in Input) *Plan {
	t.Helper()
	plan, err := Solve(in)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	if errs := checkPlan(in, plan); len(errs) > 0 {
		t.Fatalf("plan is invalid:\n%v", errs)
	}
	return plan
}
