package provisioner_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

// catalogue builds the embedded eastus catalogue with its prices.
func catalogue() []*instancetype.InstanceType {
	cat, err := instancetype.BuildDefault("eastus", api.DefaultClusterNetwork())
	if err != nil {
		panic(err)
	}
	return cat.InstanceTypes
}

func generalPurpose() *api.NodePool {
	in := func(key string, values ...string) api.NodeSelectorRequirementWithMinValues {
		return api.NodeSelectorRequirementWithMinValues{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
	}
	return &api.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "general-purpose"},
		Spec: api.NodePoolSpec{
			Template: api.NodeClaimTemplate{Spec: api.NodeClaimTemplateSpec{
				NodeClassRef: &api.NodeClassReference{Name: "default"},
				Requirements: []api.NodeSelectorRequirementWithMinValues{
					in(api.LabelArch, api.ArchAMD64), in(api.LabelOS, api.OSLinux),
					in(api.LabelCapacityType, api.CapacityTypeOnDemand), in(api.LabelSKUFamily, "D"),
				},
			}},
			Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")},
		},
	}
}

func inflate(name, cpu string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "inflate"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "inflate", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}},
	}
}

// ExampleSolve plans the seed walkthrough: five 1-CPU replicas on the general-purpose NodePool
// (D family, amd64, on-demand). Three fit a 4-vCPU node; the other two are cheapest on two 2-vCPU
// nodes. Zones of equal price are chosen by Options.Seed.
func ExampleSolve() {
	var pods []*corev1.Pod
	for i := range 5 {
		pods = append(pods, inflate(fmt.Sprintf("inflate-%d", i), "1"))
	}
	plan, err := provisioner.Solve(provisioner.Input{
		Pods:      pods,
		NodePools: []provisioner.NodePoolInput{{NodePool: generalPurpose(), InstanceTypes: catalogue()}},
	})
	if err != nil {
		panic(err)
	}
	for _, nc := range plan.NodeClaims {
		fmt.Printf("%s: %s %s %s $%.4f/h (VM $%.4f + OS disk $%.4f), %d pods\n", nc.Name, nc.InstanceType, nc.Zone,
			nc.CapacityType, nc.PricePerHour, nc.VMPricePerHour, nc.DiskPricePerHour, len(nc.Pods))
	}
	fmt.Printf("total $%.4f/h\n", plan.Cost.PricePerHour)
	// Output:
	// general-purpose-1: Standard_D8als_v6 eastus-3 on-demand $0.3490/h (VM $0.3220 + OS disk $0.0270), 5 pods
	// total $0.3490/h
}

// ExampleSolve_unschedulable shows the explanation of a pod no allowed instance type can hold.
func ExampleSolve_unschedulable() {
	np := generalPurpose()
	np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
		api.NodeSelectorRequirementWithMinValues{Key: api.LabelSKUCPU, Operator: corev1.NodeSelectorOpLt, Values: []string{"65"}})
	plan, err := provisioner.Solve(provisioner.Input{
		Pods:      []*corev1.Pod{inflate("big", "96")},
		NodePools: []provisioner.NodePoolInput{{NodePool: np, InstanceTypes: catalogue()}},
	})
	if err != nil {
		panic(err)
	}
	u := plan.Unschedulable[0]
	fmt.Println(u.Pod, u.Code)
	fmt.Println(u.Reason)
	// Output:
	// default/big InsufficientResources
	// needs 96 CPU; largest instance type allowed by NodePool general-purpose has 63260m allocatable
}
