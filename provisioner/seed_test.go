package provisioner

import (
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// seedNodePool is the general-purpose NodePool of the seed walkthrough (seed-manifests.yaml).
func seedNodePool() *api.NodePool {
	return &api.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "general-purpose", Annotations: map[string]string{"kubernetes.io/description": "General purpose NodePool"}},
		Spec: api.NodePoolSpec{
			Template: api.NodeClaimTemplate{
				ObjectMeta: api.TemplateObjectMeta{Labels: map[string]string{"kubernetes.azure.com/ebpf-dataplane": "cilium"}},
				Spec: api.NodeClaimTemplateSpec{
					NodeClassRef:  &api.NodeClassReference{Group: api.AzureGroup, Kind: api.KindAKSNodeClass, Name: "default"},
					StartupTaints: []corev1.Taint{{Key: "node.cilium.io/agent-not-ready", Effect: corev1.TaintEffectNoExecute, Value: "true"}},
					Requirements: []api.NodeSelectorRequirementWithMinValues{
						req(api.LabelArch, corev1.NodeSelectorOpIn, api.ArchAMD64),
						req(api.LabelOS, corev1.NodeSelectorOpIn, api.OSLinux),
						req(api.LabelCapacityType, corev1.NodeSelectorOpIn, api.CapacityTypeOnDemand),
						req(api.LabelSKUFamily, corev1.NodeSelectorOpIn, "D"),
					},
					ExpireAfter: api.NeverDuration(),
				},
			},
			Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")},
		},
	}
}

// inflatePods is the walkthrough's inflate Deployment scaled to n replicas of 1 CPU.
func inflatePods(n int) []*corev1.Pod {
	return pods(n, "inflate", "1", "", withLabels("app", "inflate"))
}

// TestSeedWalkthrough plans the seed's inflate Deployment at 5 replicas on the general-purpose
// NodePool: every pod lands on a D-family, amd64, linux, on-demand node, the pool's CPU stays within
// its limit, and the price is the cheapest such nodes allow (computed here independently by a
// dynamic program over the eligible instance types).
func TestSeedWalkthrough(t *testing.T) {
	types := eastusTypes(t)
	in := Input{Pods: inflatePods(5), NodePools: []NodePoolInput{{NodePool: seedNodePool(), InstanceTypes: types}}}
	plan := solveOrFail(t, in)
	if len(plan.Unschedulable) != 0 {
		t.Fatalf("unschedulable: %+v", plan.Unschedulable)
	}
	var cpu int64
	for _, nc := range plan.NodeClaims {
		l := nc.Labels
		if l[api.LabelSKUFamily] != "D" || l[api.LabelArch] != api.ArchAMD64 || l[api.LabelOS] != api.OSLinux || nc.CapacityType != api.CapacityTypeOnDemand {
			t.Fatalf("claim %s (%s) is not a D-family amd64 linux on-demand node: %v", nc.Name, nc.InstanceType, l)
		}
		if l["kubernetes.azure.com/ebpf-dataplane"] != "cilium" || len(nc.StartupTaints) != 1 {
			t.Fatalf("claim %s misses the pool's label or startup taint", nc.Name)
		}
		q := nc.Capacity[corev1.ResourceCPU]
		cpu += q.MilliValue()
	}
	if cpu > 100_000 {
		t.Fatalf("pool CPU %dm exceeds the limit of 100", cpu)
	}
	want := cheapestForIdentical(types, 5, 1000, func(it *instancetype.InstanceType) bool {
		f := it.Requirements[api.LabelSKUFamily]
		a := it.Requirements[api.LabelArch]
		return f != nil && f.Has("D") && a != nil && a.Has(api.ArchAMD64)
	})
	if math.Abs(plan.Cost.PricePerHour-want) > 1e-9 {
		t.Fatalf("price %.6f, cheapest possible %.6f (%v)", plan.Cost.PricePerHour, want, claimsByType(plan))
	}
	t.Logf("5 inflate pods: %v at $%.4f/h (bound $%.4f/h)", claimsByType(plan), plan.Cost.PricePerHour, plan.Cost.LowerBoundPerHour)
}

// cheapestForIdentical is the exact minimum price of nodes (on-demand offerings of the allowed
// types) holding n pods of cpuMilli each: best[k] = min over types of price + best[k - fit].
func cheapestForIdentical(types []*instancetype.InstanceType, n int, cpuMilli int64, allowed func(*instancetype.InstanceType) bool) float64 {
	best := make([]float64, n+1)
	for k := 1; k <= n; k++ {
		best[k] = math.Inf(1)
	}
	for _, it := range types {
		if !allowed(it) {
			continue
		}
		price := math.Inf(1)
		for _, o := range it.Offerings {
			if o.Available && o.CapacityType == api.CapacityTypeOnDemand {
				price = math.Min(price, o.Price)
			}
		}
		alloc := it.Allocatable()
		q := alloc[corev1.ResourceCPU]
		fit := int(q.MilliValue() / cpuMilli)
		if fit == 0 {
			continue
		}
		for k := 1; k <= n; k++ {
			best[k] = math.Min(best[k], price+best[max(0, k-fit)])
		}
	}
	return best[n]
}
