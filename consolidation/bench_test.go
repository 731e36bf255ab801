package consolidation

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

// The benchmark clusters are built from the embedded eastus catalogue: nodes of common D, E and F
// sizes, each filled with pods of mixed sizes to a drawn utilisation (a few empty, some nearly
// empty, most 30-95 % full), so that a pass has emptiness, multi-node and single-node work to do.

var eastus struct {
	once  sync.Once
	types []*instancetype.InstanceType
	err   error
}

// eastusTypes returns the priced eastus catalogue, built once per test binary.
func eastusTypes(tb testing.TB) []*instancetype.InstanceType {
	tb.Helper()
	eastus.once.Do(func() {
		cat, err := instancetype.BuildDefault("eastus", api.DefaultClusterNetwork())
		if err != nil {
			eastus.err = err
			return
		}
		eastus.types = cat.InstanceTypes
	})
	if eastus.err != nil {
		tb.Fatalf("eastus catalogue: %v", eastus.err)
	}
	return eastus.types
}

// benchNodeTypes are the sizes synthetic nodes run on, smaller ones more often.
var benchNodeTypes = []string{
	"Standard_D2s_v5", "Standard_D4s_v5", "Standard_D4s_v5", "Standard_D8s_v5", "Standard_D8s_v5",
	"Standard_D16s_v5", "Standard_E2s_v5", "Standard_E4s_v5", "Standard_E8s_v5", "Standard_F4s_v2",
	"Standard_F8s_v2",
}

var benchZones = []string{"eastus-1", "eastus-2", "eastus-3"}

// benchCluster describes one synthetic cluster.
type benchCluster struct {
	nodes int
	pools int
	seed  uint64
}

// benchPool is a pool over D, E and F sizes with a budget that lets the whole pass through: the
// benchmark measures the methods, not the budget.
func benchPool(name string, policy api.ConsolidationPolicy, capacityTypes ...string) *api.NodePool {
	zero := time.Duration(0)
	return &api.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: api.NodePoolSpec{
			Template: api.NodeClaimTemplate{Spec: api.NodeClaimTemplateSpec{
				Requirements: []api.NodeSelectorRequirementWithMinValues{
					{Key: api.LabelSKUFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"D", "E", "F"}},
					{Key: api.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: capacityTypes},
					{Key: api.LabelZone, Operator: corev1.NodeSelectorOpIn, Values: benchZones},
				},
				NodeClassRef: &api.NodeClassReference{Group: api.AzureGroup, Kind: api.KindAKSNodeClass, Name: "default"},
			}},
			Disruption: api.Disruption{
				ConsolidateAfter:    api.NillableDuration{Duration: &zero},
				ConsolidationPolicy: policy,
				Budgets:             []api.Budget{{Nodes: "100%"}},
			},
		},
	}
}

// build returns the cluster snapshot.
func (c benchCluster) build(tb testing.TB) Input {
	tb.Helper()
	types := eastusTypes(tb)
	byName := make(map[string]*instancetype.InstanceType, len(types))
	for _, it := range types {
		byName[it.Name] = it
	}
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	pools := []*api.NodePool{benchPool("general", api.ConsolidationPolicyWhenEmptyOrUnderutilized, api.CapacityTypeOnDemand)}
	if c.pools > 1 {
		pools = append(pools, benchPool("flex", api.ConsolidationPolicyBalanced, api.CapacityTypeSpot, api.CapacityTypeOnDemand))
	}
	in := Input{Now: now}
	for _, p := range pools {
		in.NodePools = append(in.NodePools, provisioner.NodePoolInput{NodePool: p, InstanceTypes: types})
	}
	r := rand.New(rand.NewPCG(c.seed, c.seed^0x9e3779b97f4a7c15))
	for i := range c.nodes {
		pool := pools[i%len(pools)]
		it := byName[benchNodeTypes[r.IntN(len(benchNodeTypes))]]
		if it == nil {
			tb.Fatalf("benchmark node type missing from the catalogue")
		}
		capType := api.CapacityTypeOnDemand
		if pool.Name == "flex" {
			capType = api.CapacityTypeSpot
		}
		name := fmt.Sprintf("node-%05d", i)
		n := benchNode(name, pool.Name, it, benchZones[r.IntN(len(benchZones))], capType, now)
		n.Pods = benchPods(r, name, it, benchFill(r))
		in.Nodes = append(in.Nodes, n)
	}
	return in
}

// benchFill draws a node's utilisation: 3 % empty, 10 % nearly empty, the rest 30-95 %.
func benchFill(r *rand.Rand) float64 {
	switch x := r.Float64(); {
	case x < 0.03:
		return 0
	case x < 0.13:
		return 0.05 + 0.15*r.Float64()
	default:
		return 0.30 + 0.65*r.Float64()
	}
}

func benchNode(name, pool string, it *instancetype.InstanceType, zone, capType string, now time.Time) Node {
	labels := it.Requirements.Labels()
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capType {
			for k, v := range o.Requirements.Labels() {
				labels[k] = v
			}
		}
	}
	labels[api.LabelNodePool] = pool
	labels[api.LabelHostname] = name
	labels[api.LabelZone] = zone
	labels[api.LabelCapacityType] = capType
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: metav1.NewTime(now.Add(-48 * time.Hour))},
		Status:     corev1.NodeStatus{Capacity: it.Capacity.DeepCopy(), Allocatable: it.Allocatable().DeepCopy()},
	}
	return Node{Node: node, Initialized: true, InitializedAt: now.Add(-48 * time.Hour), LastPodEventAt: now.Add(-time.Hour)}
}

var (
	benchCPUs     = []int64{50, 100, 250, 500, 1000}
	benchMemories = []int64{64, 128, 256, 512, 1024, 2048}
)

// benchPods fills a node with pods until the next one would take CPU or memory past fill.
func benchPods(r *rand.Rand, node string, it *instancetype.InstanceType, fill float64) []*corev1.Pod {
	alloc := it.Allocatable()
	cpuCap := float64(alloc.Cpu().MilliValue()) * fill
	memCap := float64(alloc.Memory().Value()) * fill
	var out []*corev1.Pod
	var cpu, mem float64
	for misses := 0; misses < 4; {
		c := benchCPUs[r.IntN(len(benchCPUs))]
		m := benchMemories[r.IntN(len(benchMemories))] << 20
		if cpu+float64(c) > cpuCap || mem+float64(m) > memCap {
			misses++
			continue
		}
		cpu, mem = cpu+float64(c), mem+float64(m)
		out = append(out, benchPod(fmt.Sprintf("%s-p%d", node, len(out)), node, c, m))
	}
	return out
}

func benchPod(name, node string, milliCPU, memory int64) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "bench"}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(memory, resource.BinarySI),
			}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

// BenchmarkDecide measures one full pass over synthetic clusters of 200 and 2,000 nodes.
func BenchmarkDecide(b *testing.B) {
	for _, c := range []benchCluster{{nodes: 200, pools: 2, seed: 7}, {nodes: 2000, pools: 2, seed: 7}} {
		in := c.build(b)
		pods := 0
		for _, n := range in.Nodes {
			pods += len(n.Pods)
		}
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", c.nodes, pods), func(b *testing.B) {
			plan := decideLoop(b, in)
			b.ReportMetric(plan.Stats.SavingsPerHour, "saved$/h")
			b.ReportMetric(float64(len(plan.Commands)), "commands")
			b.ReportMetric(float64(nodesRemoved(plan)), "removed")
			b.ReportMetric(float64(plan.Stats.Simulations), "sims")
			b.ReportMetric(float64(plan.Stats.Evictions), "evictions")
		})
	}
}

// BenchmarkDecideSkipUnderutilized is BenchmarkDecide's 2,000-node pass with the Underutilized
// method skipped (Options.SkipUnderutilized): what a controller's pass costs while its
// "consolidated" mark holds. Compare with BenchmarkDecide/nodes=2000 in the same run.
func BenchmarkDecideSkipUnderutilized(b *testing.B) {
	in := benchCluster{nodes: 2000, pools: 2, seed: 7}.build(b)
	in.Options.SkipUnderutilized = true
	plan := decideLoop(b, in)
	b.ReportMetric(float64(plan.Stats.Simulations), "sims")
}

// BenchmarkValidate measures validating a whole Decide pass's Empty and Underutilized commands
// on the same synthetic clusters (what the controller runs after each validation delay, in place
// of a second Decide).
func BenchmarkValidate(b *testing.B) {
	for _, c := range []benchCluster{{nodes: 200, pools: 2, seed: 7}, {nodes: 2000, pools: 2, seed: 7}} {
		in := c.build(b)
		plan, err := Decide(in)
		if err != nil {
			b.Fatal(err)
		}
		var cmds []Command
		for _, cmd := range plan.Commands {
			if cmd.Reason == ReasonEmpty || cmd.Reason == ReasonUnderutilized {
				cmds = append(cmds, cmd)
			}
		}
		b.Run(fmt.Sprintf("nodes=%d/commands=%d", c.nodes, len(cmds)), func(b *testing.B) {
			var held int
			for b.Loop() {
				verdicts, err := Validate(in, cmds)
				if err != nil {
					b.Fatal(err)
				}
				held = 0
				for _, v := range verdicts {
					if v.Command != nil {
						held++
					}
				}
			}
			b.ReportMetric(float64(held), "held")
		})
	}
}

// BenchmarkUnneeded measures Unneeded beside the pass it relaxes, on the synthetic clusters with
// the default budget (10 %) instead of the benchmarks' 100 %: what marking the unneeded nodes
// adds to a controller's disruption pass.
func BenchmarkUnneeded(b *testing.B) {
	for _, c := range []benchCluster{{nodes: 200, pools: 2, seed: 7}, {nodes: 2000, pools: 2, seed: 7}} {
		in := c.build(b)
		for i, p := range in.NodePools {
			pool := *p.NodePool
			pool.Spec.Disruption.Budgets = []api.Budget{{Nodes: "10%"}}
			in.NodePools[i].NodePool = &pool
		}
		b.Run(fmt.Sprintf("nodes=%d/decide", c.nodes), func(b *testing.B) {
			b.ReportMetric(float64(nodesRemoved(decideLoop(b, in))), "removed")
		})
		b.Run(fmt.Sprintf("nodes=%d/unneeded", c.nodes), func(b *testing.B) {
			var names []string
			for b.Loop() {
				var err error
				if names, err = Unneeded(in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(names)), "unneeded")
		})
	}
}

// decideLoop runs Decide on in for the benchmark's iterations and returns the last plan.
func decideLoop(b *testing.B, in Input) *Plan {
	b.Helper()
	var plan *Plan
	for b.Loop() {
		var err error
		if plan, err = Decide(in); err != nil {
			b.Fatal(err)
		}
	}
	return plan
}

// nodesRemoved counts the nodes the plan's commands remove.
func nodesRemoved(plan *Plan) int {
	removed := 0
	for _, cmd := range plan.Commands {
		removed += len(cmd.Nodes)
	}
	return removed
}
