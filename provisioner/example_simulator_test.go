package provisioner_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

// runningNode is a general-purpose node of type it, as the cluster reports it.
func runningNode(name string, it *instancetype.InstanceType, zone string) *corev1.Node {
	labels := it.Requirements.Labels()
	labels[api.LabelHostname], labels[api.LabelZone] = name, zone
	labels[api.LabelCapacityType], labels[api.LabelNodePool] = api.CapacityTypeOnDemand, "general-purpose"
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status: corev1.NodeStatus{Allocatable: it.Allocatable(), Capacity: it.Capacity}}
}

// ExampleSimulator_Evacuate asks consolidation's question of a two-node cluster: where would the
// pods of one node go if it were removed? The snapshot is compiled once; each question costs
// only what it moves.
func ExampleSimulator_Evacuate() {
	types := catalogue()
	var d4 *instancetype.InstanceType
	for _, it := range types {
		if it.Name == "Standard_D4als_v6" {
			d4 = it
		}
	}
	a, b := runningNode("node-a", d4, "eastus-1"), runningNode("node-b", d4, "eastus-2")
	bound := func(name, node string) *corev1.Pod {
		p := inflate(name, "1")
		p.Spec.NodeName = node
		return p
	}
	sim, err := provisioner.NewSimulator(provisioner.Input{
		Nodes: []provisioner.ExistingNode{
			{Node: a, Pods: []*corev1.Pod{bound("inflate-0", "node-a")}, Initialized: true},
			{Node: b, Pods: []*corev1.Pod{bound("inflate-1", "node-b"), bound("inflate-2", "node-b")}, Initialized: true},
		},
		NodePools: []provisioner.NodePoolInput{{NodePool: generalPurpose(), InstanceTypes: types}},
	})
	if err != nil {
		panic(err)
	}
	for _, gone := range []string{"node-a", "node-b"} {
		plan, err := sim.Evacuate(provisioner.EvacuateRequest{Nodes: []string{gone}, AllowNewNodeClaims: true})
		if err != nil {
			panic(err)
		}
		for _, n := range plan.ExistingNodes {
			fmt.Printf("without %s: %s takes %v\n", gone, n.Name, n.Pods)
		}
		fmt.Printf("without %s: %d new NodeClaims, %d pods unschedulable\n", gone, len(plan.NodeClaims), len(plan.Unschedulable))
	}
	// Output:
	// without node-a: node-b takes [default/inflate-0]
	// without node-a: 0 new NodeClaims, 0 pods unschedulable
	// without node-b: node-a takes [default/inflate-1 default/inflate-2]
	// without node-b: 0 new NodeClaims, 0 pods unschedulable
}
