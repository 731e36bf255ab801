package consolidation_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

// ExampleDecide is the seed walkthrough's second half on a three-node cluster: one node is empty,
// one holds a single 1-CPU pod another node has room for, and one is protected by a pod annotated
// karpenter.sh/do-not-disrupt. The pool consolidates WhenEmptyOrUnderutilized after 0s, with a
// budget of 100 % (the default 10 % would let one node go per pass).
func ExampleDecide() {
	cat, err := instancetype.BuildDefault("eastus", api.DefaultClusterNetwork())
	if err != nil {
		panic(err)
	}
	d4, _ := cat.Find("Standard_D4als_v6")
	pool := &api.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "general-purpose"}, Spec: api.NodePoolSpec{
		Template: api.NodeClaimTemplate{Spec: api.NodeClaimTemplateSpec{
			NodeClassRef: &api.NodeClassReference{Name: "default"},
			Requirements: []api.NodeSelectorRequirementWithMinValues{{Key: api.LabelCapacityType,
				Operator: corev1.NodeSelectorOpIn, Values: []string{api.CapacityTypeOnDemand}}},
		}},
		Disruption: api.Disruption{ConsolidationPolicy: api.ConsolidationPolicyWhenEmptyOrUnderutilized,
			ConsolidateAfter: api.NewDuration(0), Budgets: []api.Budget{{Nodes: "100%"}}},
	}}
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	node := func(name string, pods ...*corev1.Pod) consolidation.Node {
		labels := d4.Requirements.Labels()
		labels[api.LabelHostname], labels[api.LabelZone] = name, "eastus-1"
		labels[api.LabelCapacityType], labels[api.LabelNodePool] = api.CapacityTypeOnDemand, pool.Name
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Status: corev1.NodeStatus{Allocatable: d4.Allocatable(), Capacity: d4.Capacity}}
		for _, p := range pods {
			p.Spec.NodeName = name
		}
		return consolidation.Node{Node: n, Pods: pods, Initialized: true, InitializedAt: now.Add(-time.Hour)}
	}
	pod := func(name string, annotations map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Annotations: annotations},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	}
	plan, err := consolidation.Decide(consolidation.Input{
		Nodes: []consolidation.Node{
			node("aks-empty"),
			node("aks-underused", pod("web-0", nil)),
			node("aks-protected", pod("batch-0", map[string]string{api.AnnotationDoNotDisrupt: "true"})),
		},
		NodePools: []provisioner.NodePoolInput{{NodePool: pool, InstanceTypes: cat.InstanceTypes}},
		Now:       now,
	})
	if err != nil {
		panic(err)
	}
	for _, c := range plan.Commands {
		fmt.Printf("%s %s %v saves $%.4f/h, moves %v\n", c.Kind, c.Reason, c.Nodes, c.SavingsPerHour, c.Moves)
	}
	for _, b := range plan.Blocked {
		fmt.Printf("blocked %s: %s\n", b.Node, b.Reason)
	}
	// Each node is a Standard_D4als_v6: $0.161/h for the VM plus $0.027/h for its 128 GB Premium_LRS
	// (P10) managed OS disk, so removing one saves $0.1880/h.

	// Output:
	// delete Empty [aks-empty] saves $0.1880/h, moves []
	// delete Underutilized [aks-underused] saves $0.1880/h, moves [{default/web-0 aks-protected}]
	// blocked aks-protected: pod default/batch-0 has karpenter.sh/do-not-disrupt=true
}
