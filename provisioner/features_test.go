package provisioner

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

func TestPodRequests(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	cpu := func(q string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}}
	}
	cases := []struct {
		name string
		spec corev1.PodSpec
		want int64
	}{
		{"containers sum", corev1.PodSpec{Containers: []corev1.Container{{Resources: cpu("1")}, {Resources: cpu("500m")}}}, 1500},
		{"init dominates", corev1.PodSpec{InitContainers: []corev1.Container{{Resources: cpu("3")}}, Containers: []corev1.Container{{Resources: cpu("1")}}}, 3000},
		{"sidecar adds", corev1.PodSpec{InitContainers: []corev1.Container{{Resources: cpu("1"), RestartPolicy: &always}}, Containers: []corev1.Container{{Resources: cpu("1")}}}, 2000},
		{"init after sidecar", corev1.PodSpec{InitContainers: []corev1.Container{{Resources: cpu("1"), RestartPolicy: &always}, {Resources: cpu("2")}},
			Containers: []corev1.Container{{Resources: cpu("500m")}}}, 3000},
		{"overhead", corev1.PodSpec{Containers: []corev1.Container{{Resources: cpu("1")}}, Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}, 1250},
		{"pod level", corev1.PodSpec{Containers: []corev1.Container{{Resources: cpu("1")}}, Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}}, 4000},
		{"limit as request", corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}}, 2000},
	}
	for _, tc := range cases {
		got := podRequests(&corev1.Pod{Spec: tc.spec})
		if got[corev1.ResourceCPU] != tc.want || got[corev1.ResourcePods] != 1 {
			t.Errorf("%s: cpu %d pods %d, want %d and 1", tc.name, got[corev1.ResourceCPU], got[corev1.ResourcePods], tc.want)
		}
	}
}

// Existing nodes and in-flight claims are used before anything new is bought.
func TestExistingCapacityFirst(t *testing.T) {
	in := Input{
		Pods:      pods(3, "p", "1", "1Gi"),
		Nodes:     []ExistingNode{node("n1", "test-zone-1", "2", "8Gi")},
		InFlight:  []InFlightClaim{{Name: "claim-a", NodePool: "default", InstanceType: "default-instance-type", Zone: "test-zone-2", CapacityType: "spot"}},
		NodePools: []NodePoolInput{testPool("default")},
	}
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 0 || len(plan.ExistingNodes) != 1 || len(plan.ExistingNodes[0].Pods) != 2 || len(plan.InFlightClaims) != 1 {
		t.Fatalf("want 2 pods on n1 and 1 on claim-a, got %+v", plan)
	}
}

// A bound volume pins the pod to its zone.
func TestVolumeZone(t *testing.T) {
	p := pod("db", "1", "", func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "d", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}
	})
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1"}}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}, Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{
		Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term(nsr(azureDiskZoneKey, corev1.NodeSelectorOpIn, "test-zone-3"))}}}}}
	in := Input{Pods: []*corev1.Pod{p}, PersistentVolumeClaims: []*corev1.PersistentVolumeClaim{pvc}, PersistentVolumes: []*corev1.PersistentVolume{pv},
		NodePools: []NodePoolInput{testPool("default")}}
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 1 || plan.NodeClaims[0].Zone != "test-zone-3" {
		t.Fatalf("want one node in test-zone-3, got %+v", plan.NodeClaims)
	}
}

// Capacity buffers are planned as virtual pods after the real ones.
func TestCapacityBuffer(t *testing.T) {
	buf := CapacityBuffer{Name: "headroom", Replicas: 2, PodTemplate: corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default"}, Spec: pod("x", "1", "").Spec}}
	in := Input{Pods: pods(2, "p", "1", ""), CapacityBuffers: []CapacityBuffer{buf}, NodePools: []NodePoolInput{testPool("default")}}
	plan := solveOrFail(t, in)
	var bufs []string
	for _, nc := range plan.NodeClaims {
		bufs = append(bufs, nc.BufferPods...)
	}
	if strings.Join(bufs, ",") != "buffer/headroom-0,buffer/headroom-1" || plan.Stats.Placed != 2 {
		t.Fatalf("buffers %v placed %d", bufs, plan.Stats.Placed)
	}
}

// CostAware packs pods with a weight-1 preferred hostname anti-affinity onto shared nodes rather
// than a node each, and reports the preference as unmet; Respect gives each its own node.
func TestPreferencePolicies(t *testing.T) {
	mk := func() []*corev1.Pod {
		return pods(6, "web", "500m", "", withLabels("app", "web"), withPreferredAnti(1, api.LabelHostname, selector("app", "web")))
	}
	cost := solveOrFail(t, Input{Pods: mk(), NodePools: []NodePoolInput{testPool("default")}})
	respect := solveOrFail(t, Input{Pods: mk(), NodePools: []NodePoolInput{testPool("default")}, Options: Options{PreferencePolicy: PreferenceRespect}})
	ignore := solveOrFail(t, Input{Pods: mk(), NodePools: []NodePoolInput{testPool("default")}, Options: Options{PreferencePolicy: PreferenceIgnore}})
	if len(respect.NodeClaims) != 6 {
		t.Fatalf("Respect: %d nodes, want 6", len(respect.NodeClaims))
	}
	if len(cost.NodeClaims) > 2*len(ignore.NodeClaims) || cost.Cost.PricePerHour > ignore.Cost.PricePerHour+1e-9 {
		t.Fatalf("CostAware: %d nodes $%.2f, Ignore %d nodes $%.2f", len(cost.NodeClaims), cost.Cost.PricePerHour, len(ignore.NodeClaims), ignore.Cost.PricePerHour)
	}
	if len(cost.UnmetPreferences) == 0 || len(ignore.UnmetPreferences) != 0 {
		t.Fatalf("unmet preferences: CostAware %v, Ignore %v", cost.UnmetPreferences, ignore.UnmetPreferences)
	}
}

func TestInvalidInput(t *testing.T) {
	bad := pod("p", "1", "", withRequiredTerms(term(nsr("zone", "Near", "x"))))
	for name, in := range map[string]Input{
		"operator":       {Pods: []*corev1.Pod{bad}, NodePools: []NodePoolInput{testPool("default")}},
		"nil pod":        {Pods: []*corev1.Pod{nil}},
		"duplicate":      {Pods: []*corev1.Pod{pod("p", "1", ""), pod("p", "1", "")}},
		"policy":         {Options: Options{PreferencePolicy: "Sometimes"}},
		"pool twice":     {NodePools: []NodePoolInput{testPool("a"), testPool("a")}},
		"bound pod":      {Pods: []*corev1.Pod{pod("p", "1", "", func(p *corev1.Pod) { p.Spec.NodeName = "n" })}},
		"in-flight pool": {InFlight: []InFlightClaim{{Name: "c", NodePool: "missing"}}},
	} {
		_, err := Solve(in)
		var ie *api.FieldError
		if !errors.Is(err, ErrInvalidInput) || !errors.As(err, &ie) || ie.Object == "" {
			t.Errorf("%s: got %v, want an *api.FieldError", name, err)
		}
	}
}

// BestEffort keeps pods the Strict policy rejects for minValues, and marks the claims.
func TestMinValuesBestEffort(t *testing.T) {
	in := minValuesPool(1)
	in.Options.MinValuesPolicy = MinValuesBestEffort
	plan := solveOrFail(t, in)
	if len(plan.Unschedulable) != 0 || len(plan.NodeClaims) == 0 || !plan.NodeClaims[0].MinValuesRelaxed {
		t.Fatalf("want the pods placed on relaxed claims, got %+v", plan)
	}
}

// Constrained pods, too, use room on existing nodes before anything new.
func TestExistingCapacityFirstConstrained(t *testing.T) {
	in := Input{
		Pods:      pods(2, "p", "500m", "", withLabels(appTest...), withAntiAffinity(api.LabelHostname, selector(appTest...))),
		Nodes:     []ExistingNode{node("n1", "test-zone-1", "4", "8Gi"), node("n2", "test-zone-2", "4", "8Gi")},
		NodePools: []NodePoolInput{testPool("default")},
	}
	plan := solveOrFail(t, in)
	if len(plan.NodeClaims) != 0 || len(plan.ExistingNodes) != 2 {
		t.Fatalf("want both pods on existing nodes, got %+v", plan)
	}
}

// The plan is never dearer than first-fit-decreasing of the same pods (Solve keeps the cheaper of
// the two), and on the benchmark mixes the napkit strategy itself is well below it.
func TestNeverWorseThanFFD(t *testing.T) {
	for name, ps := range map[string][]*corev1.Pod{"generic": genericPods(1000), "diverse": diversePods(1000)} {
		in := Input{Pods: ps, NodePools: benchPool(t)}
		plan := solveOrFail(t, in)
		e, err := newEngine(&in, in.Options.withDefaults(), true)
		if err != nil {
			t.Fatal(err)
		}
		e.pack()
		ffd := totalPrice(e.finalize())
		if plan.Cost.PricePerHour > ffd+1e-6 || plan.Stats.Strategy != StrategyNapkit {
			t.Fatalf("%s: plan $%.2f (%s), first-fit-decreasing $%.2f", name, plan.Cost.PricePerHour, plan.Stats.Strategy, ffd)
		}
		t.Logf("%s: napkit $%.2f/h, first-fit-decreasing $%.2f/h, bound $%.2f/h", name, plan.Cost.PricePerHour, ffd, plan.Cost.LowerBoundPerHour)
	}
}
