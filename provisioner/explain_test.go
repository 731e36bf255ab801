package provisioner

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

// TestExplanations checks that every unschedulable pod gets the code of the check it failed and a
// message naming the constraint, the NodePool and the nearest miss.
func TestExplanations(t *testing.T) {
	seed := func() NodePoolInput { return NodePoolInput{NodePool: seedNodePool(), InstanceTypes: eastusTypes(t)} }
	tainted := seed()
	tainted.NodePool.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	full := seed()
	small := seed()
	small.NodePool.Spec.Template.Spec.Requirements = append(small.NodePool.Spec.Template.Spec.Requirements,
		req(api.LabelSKUCPU, corev1.NodeSelectorOpLt, "65"))
	bound := pods(98, "running", "1", "")
	cases := []struct {
		name  string
		in    Input
		code  Code
		wants []string
	}{
		{"too big", Input{Pods: []*corev1.Pod{pod("big", "96", "")}, NodePools: []NodePoolInput{small}},
			CodeResources, []string{"needs 96 CPU; largest instance type allowed by NodePool general-purpose has 63260m allocatable"}},
		{"taint", Input{Pods: []*corev1.Pod{pod("p", "1", "")}, NodePools: []NodePoolInput{tainted}},
			CodeTaint, []string{"taint gpu=true:NoSchedule", "NodePool general-purpose", "not tolerated"}},
		{"limit", Input{Pods: []*corev1.Pod{pod("p", "4", "")}, NodePools: []NodePoolInput{full},
			Nodes: []ExistingNode{poolNode("existing", "general-purpose", "98", bound...)}},
			CodeLimits, []string{"NodePool general-purpose cpu limit 100 reached (98 in use"}},
		{"selector", Input{Pods: []*corev1.Pod{pod("p", "1", "", withNodeSelector(api.LabelArch, api.ArchARM64))}, NodePools: []NodePoolInput{seed()}},
			CodeRequirements, []string{"kubernetes.io/arch In [arm64]", "general-purpose", "amd64"}},
		{"gated", Input{Pods: []*corev1.Pod{pod("p", "1", "", func(p *corev1.Pod) {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "wait"}}
		})}, NodePools: []NodePoolInput{seed()}}, CodeSchedulingGated, []string{"wait"}},
		{"missing claim", Input{Pods: []*corev1.Pod{pod("p", "1", "", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}
		})}, NodePools: []NodePoolInput{seed()}}, CodeVolume, []string{"PersistentVolumeClaim default/data not found"}},
		{"no pools", Input{Pods: []*corev1.Pod{pod("p", "1", "")}}, CodeNoNodePool, []string{"no NodePool"}},
		{"daemonset port", Input{Pods: []*corev1.Pod{pod("p", "1", "", withHostPort(9100))}, NodePools: []NodePoolInput{seed()},
			DaemonSets: []*appsv1.DaemonSet{daemonSet("node-exporter", "10m", "", 9100)}}, CodeHostPort, []string{"9100", "DaemonSet kube-system/node-exporter"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan := solveOrFail(t, tc.in)
			if len(plan.Unschedulable) != 1 {
				t.Fatalf("want 1 unschedulable pod, got %+v", plan.Unschedulable)
			}
			u := plan.Unschedulable[0]
			if u.Code != tc.code {
				t.Fatalf("code %s, want %s (%s)", u.Code, tc.code, u.Reason)
			}
			for _, w := range tc.wants {
				if !strings.Contains(u.Reason, w) {
					t.Fatalf("reason %q lacks %q", u.Reason, w)
				}
			}
			t.Log(u.Reason)
		})
	}
}

// poolNode is an existing node of a pool with the given CPU capacity, full of bound pods.
func poolNode(name, pool, cpu string, bound ...*corev1.Pod) ExistingNode {
	n := node(name, "eastus-1", cpu, "400Gi", bound...)
	n.NodePool = pool
	n.Node.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("400Gi")}
	n.Node.ObjectMeta = metav1.ObjectMeta{Name: name, Labels: n.Node.Labels}
	return n
}
