package snapshot_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/snapshot"
)

// From pending pods and a NodePool to a plan.
func Example() {
	cat, _ := instancetype.BuildDefault("eastus", api.DefaultClusterNetwork())
	pool := &api.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	pool.Default()
	var pods []*corev1.Pod
	for i := range 3 {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: "default"}}
		pod.Spec.Containers = []corev1.Container{{Name: "web", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m")}}}}
		pods = append(pods, pod)
	}
	s, _ := snapshot.Take(snapshot.Objects{Pods: pods,
		NodePools: []provisioner.NodePoolInput{{NodePool: pool, InstanceTypes: cat.InstanceTypes}}}, snapshot.Options{})
	plan, _ := provisioner.Solve(s.ProvisionerInput(provisioner.Options{}))
	placed := 0
	for _, nc := range plan.NodeClaims {
		placed += len(nc.Pods)
	}
	fmt.Printf("%d pods on new nodes, %d pending\n", placed, len(plan.Unschedulable))
	// Output:
	// 3 pods on new nodes, 0 pending
}
