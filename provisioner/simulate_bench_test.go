package provisioner

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// simPool is a one-pool catalogue of a few hundred types: on-demand amd64 D family (264 types in
// eastus), without limits.
func simPool(tb testing.TB) []NodePoolInput {
	np := nodePool("default", req(api.LabelArch, corev1.NodeSelectorOpIn, api.ArchAMD64),
		req(api.LabelCapacityType, corev1.NodeSelectorOpIn, api.CapacityTypeOnDemand), req(api.LabelSKUFamily, corev1.NodeSelectorOpIn, "D"))
	return []NodePoolInput{{NodePool: np, InstanceTypes: eastusTypes(tb)}}
}

// benchCluster is n Standard_D8s_v5 nodes over three zones, each filled with up to 12 pods of the
// benchmark's request mix (about 10 on average): 80% plain pods of seven apps, 10% spread over
// zones (maxSkew 1), 10% with hostname anti-affinity to their own app.
func benchCluster(tb testing.TB, n int) Input {
	pools := simPool(tb)
	it := findType(pools[0].InstanceTypes, "Standard_D8s_v5")
	br := newBenchRand()
	in := Input{NodePools: pools}
	for i := range n {
		nd := benchNode(it, fmt.Sprintf("node-%04d", i), fmt.Sprintf("eastus-%d", 1+i%3))
		free := nd.Node.Status.Allocatable.Cpu().MilliValue()
		for j := 0; j < 12; j++ {
			p := benchBoundPod(br, fmt.Sprintf("pod-%04d-%02d", i, j), j)
			cpu := p.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
			if cpu > free {
				break
			}
			free -= cpu
			p.Spec.NodeName = nd.Node.Name
			nd.Pods = append(nd.Pods, p)
		}
		in.Nodes = append(in.Nodes, nd)
	}
	return in
}

func benchNode(it *instancetype.InstanceType, name, zone string) ExistingNode {
	labels := it.Requirements.Labels()
	labels[api.LabelHostname], labels[api.LabelZone] = name, zone
	labels[api.LabelCapacityType], labels[api.LabelNodePool] = api.CapacityTypeOnDemand, "default"
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status: corev1.NodeStatus{Allocatable: it.Allocatable(), Capacity: it.Capacity}}
	return ExistingNode{Node: node, Initialized: true, NodePool: "default"}
}

func benchBoundPod(br *benchRand, name string, j int) *corev1.Pod {
	app := br.label()
	p := br.pod(name, map[string]string{"app": app})
	switch {
	case j%10 == 8:
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: api.LabelZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector("app", app)}}
	case j%10 == 9:
		p.Labels["app"] = "anti-" + app
		withAntiAffinity(api.LabelHostname, selector("app", "anti-"+app))(p)
	}
	return p
}

// BenchmarkEvacuate asks the Simulator, node after node, where one node's pods would go: without
// new NodeClaims (consolidation's delete question) and with them (its replace question).
// "reference" rebuilds and solves the whole input per question, as Evacuate did before.
func BenchmarkEvacuate(b *testing.B) {
	for _, n := range []int{200, 2000} {
		in := benchCluster(b, n)
		start := time.Now()
		sim, err := NewSimulator(in)
		if err != nil {
			b.Fatal(err)
		}
		compile := time.Since(start)
		for _, allow := range []bool{false, true} {
			b.Run(fmt.Sprintf("nodes=%d/new=%t/simulator", n, allow), func(b *testing.B) {
				runEvacuate(b, in, sim.Evacuate, allow)
				b.ReportMetric(float64(compile.Microseconds())/1000, "compileMs")
			})
			b.Run(fmt.Sprintf("nodes=%d/new=%t/quick", n, allow), func(b *testing.B) {
				quick := func(req EvacuateRequest) (*Plan, error) {
					req.Quick = true
					return sim.Evacuate(req)
				}
				runEvacuate(b, in, quick, allow)
			})
			b.Run(fmt.Sprintf("nodes=%d/new=%t/reference", n, allow), func(b *testing.B) {
				runEvacuate(b, in, sim.evacuateReference, allow)
			})
		}
	}
}

func runEvacuate(b *testing.B, in Input, ask func(EvacuateRequest) (*Plan, error), allow bool) {
	unschedulable, claims, i := 0, 0, 0
	for b.Loop() {
		node := in.Nodes[(i*7919)%len(in.Nodes)].Node.Name
		i++
		plan, err := ask(EvacuateRequest{Nodes: []string{node}, AllowNewNodeClaims: allow})
		if err != nil {
			b.Fatal(err)
		}
		unschedulable += len(plan.Unschedulable)
		claims += len(plan.NodeClaims)
	}
	b.ReportMetric(float64(unschedulable)/float64(i), "unschedulable/op")
	b.ReportMetric(float64(claims)/float64(i), "claims/op")
}
