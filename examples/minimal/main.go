// Command minimal is the smallest library program: five pending pods and one NodePool in, the
// cheapest NodeClaims out, from the catalogue and prices embedded in the library (no cluster, no
// Azure account). README.md shows this file verbatim.
package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

func main() {
	catalogue, err := instancetype.BuildDefault("eastus", api.DefaultClusterNetwork())
	if err != nil {
		panic(err)
	}
	pool := &api.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "general-purpose"},
		Spec: api.NodePoolSpec{Template: api.NodeClaimTemplate{Spec: api.NodeClaimTemplateSpec{
			NodeClassRef: &api.NodeClassReference{Name: "default"},
			Requirements: []api.NodeSelectorRequirementWithMinValues{
				{Key: api.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{api.CapacityTypeOnDemand}},
				{Key: api.LabelSKUFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"D"}},
			},
		}}},
	}
	var pods []*corev1.Pod
	for i := range 5 {
		pods = append(pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("inflate-%d", i), Namespace: "default"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}},
		})
	}
	plan, err := provisioner.Solve(provisioner.Input{
		Pods:      pods,
		NodePools: []provisioner.NodePoolInput{{NodePool: pool, InstanceTypes: catalogue.InstanceTypes}},
	})
	if err != nil {
		panic(err)
	}
	for _, nc := range plan.NodeClaims {
		fmt.Printf("%s: %s in %s, $%.4f/h, %d pods\n", nc.Name, nc.InstanceType, nc.Zone, nc.PricePerHour, len(nc.Pods))
	}
	fmt.Printf("total $%.4f/h\n", plan.Cost.PricePerHour)
}
