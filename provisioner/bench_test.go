package provisioner

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

// The benchmark workloads of Karpenter's scheduling benchmark (karpenter-core §3.1), on the full
// embedded eastus catalogue. Requests are drawn with a fixed seed.

type benchRand struct{ r *rand.Rand }

func newBenchRand() *benchRand { return &benchRand{rand.New(rand.NewPCG(42, 42))} }

func (b *benchRand) cpu() resource.Quantity {
	v := []int{100, 250, 500, 1000, 1500}
	return resource.MustParse(fmt.Sprintf("%dm", v[b.r.IntN(len(v))]))
}

func (b *benchRand) memory() resource.Quantity {
	v := []int{100, 256, 512, 1024, 2048, 4096}
	return resource.MustParse(fmt.Sprintf("%dMi", v[b.r.IntN(len(v))]))
}

func (b *benchRand) label() string { return []string{"a", "b", "c", "d", "e", "f", "g"}[b.r.IntN(7)] }

func (b *benchRand) pod(name string, lbls map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: lbls},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: b.cpu(), corev1.ResourceMemory: b.memory()}}}}}}
}

// genericPods have only CPU and memory requests.
func genericPods(n int) []*corev1.Pod {
	b := newBenchRand()
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = b.pod(fmt.Sprintf("generic-%d", i), nil)
	}
	return out
}

// diversePods are one fifth each: generic, zonal spread, hostname spread, zonal self-affinity and
// hostname self-anti-affinity (the rest generic), as in Karpenter's makeDiversePods.
func diversePods(n int) []*corev1.Pod {
	b := newBenchRand()
	fifth := n / 5
	var out []*corev1.Pod
	add := func(kind string, count int, build func(i int) *corev1.Pod) {
		for i := range count {
			p := build(i)
			p.Name = fmt.Sprintf("%s-%d", kind, i)
			out = append(out, p)
		}
	}
	generic := func(int) *corev1.Pod { return b.pod("", map[string]string{"my-label": b.label()}) }
	spread := func(key string) func(int) *corev1.Pod {
		return func(int) *corev1.Pod {
			p := b.pod("", map[string]string{"my-label": b.label()})
			p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: key,
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector("my-label", b.label())}}
			return p
		}
	}
	add("generic", fifth, generic)
	add("zonal-spread", fifth, spread(api.LabelZone))
	add("hostname-spread", fifth, spread(api.LabelHostname))
	add("zonal-affinity", fifth, func(int) *corev1.Pod {
		v := b.label()
		p := b.pod("", map[string]string{"my-affinity": v})
		withPodAffinity(api.LabelZone, selector("my-affinity", v))(p)
		return p
	})
	add("hostname-anti", fifth, func(int) *corev1.Pod {
		p := b.pod("", map[string]string{"app": "nginx"})
		withAntiAffinity(api.LabelHostname, selector("app", "nginx"))(p)
		return p
	})
	add("generic-rest", n-len(out), generic)
	return out
}

// preferencePods are Karpenter's preference benchmark: identical pods with a satisfiable preferred
// zone, an unsatisfiable preferred zonal anti-affinity (weight 10) and a satisfiable preferred
// hostname anti-affinity (weight 1).
func preferencePods(n int) []*corev1.Pod {
	b := newBenchRand()
	cpu, mem := b.cpu(), b.memory()
	out := make([]*corev1.Pod, n)
	for i := range out {
		p := pod(fmt.Sprintf("pref-%d", i), "", "", withLabels("app", "nginx"),
			withPreferredNode(1, nsr(api.LabelZone, corev1.NodeSelectorOpIn, "eastus-1")),
			withPreferredAnti(10, api.LabelZone, selector("app", "nginx")),
			withPreferredAnti(1, api.LabelHostname, selector("app", "nginx")))
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem}
		out[i] = p
	}
	return out
}

// benchPool is an on-demand pool over the whole catalogue with huge limits.
func benchPool(tb testing.TB) []NodePoolInput {
	np := nodePool("default", req(api.LabelCapacityType, corev1.NodeSelectorOpIn, api.CapacityTypeOnDemand))
	np.Spec.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10000000"), corev1.ResourceMemory: resource.MustParse("10000000Gi")}
	return []NodePoolInput{{NodePool: np, InstanceTypes: eastusTypes(tb)}}
}

func runBench(b *testing.B, ps []*corev1.Pod, opts Options) {
	in := Input{Pods: ps, NodePools: benchPool(b), Options: opts}
	runtime.GC()
	var plan *Plan
	var allocs runtime.MemStats
	runtime.ReadMemStats(&allocs)
	before := allocs.TotalAlloc
	stop := samplePeakHeap()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		var err error
		if plan, err = Solve(in); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start) / time.Duration(b.N)
	b.StopTimer()
	b.ReportMetric(float64(stop())/1e6, "peakHeapMB")
	runtime.ReadMemStats(&allocs)
	b.ReportMetric(float64(len(ps))/elapsed.Seconds(), "pods/s")
	b.ReportMetric(float64(len(plan.NodeClaims)), "nodes")
	b.ReportMetric(plan.Cost.PricePerHour, "$/h")
	b.ReportMetric(plan.Cost.DiskPricePerHour, "disk$/h")
	b.ReportMetric(plan.Cost.LowerBoundPerHour, "bound$/h")
	if plan.Cost.LowerBoundPerHour > 0 {
		b.ReportMetric(plan.Cost.PricePerHour/plan.Cost.LowerBoundPerHour, "price/bound")
	}
	b.ReportMetric(float64(len(plan.Unschedulable)), "unschedulable")
	b.ReportMetric(float64(allocs.TotalAlloc-before)/float64(b.N)/1e6, "allocMB/op")
}

// samplePeakHeap samples the live heap every few milliseconds until the returned function is
// called, which returns the largest value seen.
func samplePeakHeap() func() uint64 {
	done := make(chan struct{})
	result := make(chan uint64)
	go func() {
		var peak uint64
		var ms runtime.MemStats
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-done:
				result <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		return <-result
	}
}

func BenchmarkDiverse(b *testing.B) {
	for _, n := range []int{1000, 5000, 10000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { runBench(b, diversePods(n), Options{}) })
	}
}

func BenchmarkGeneric(b *testing.B) {
	for _, n := range []int{1000, 5000, 10000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { runBench(b, genericPods(n), Options{}) })
	}
}

func BenchmarkPreferences(b *testing.B) {
	for _, policy := range []PreferencePolicy{PreferenceCostAware, PreferenceIgnore, PreferenceRespect} {
		b.Run(string(policy), func(b *testing.B) { runBench(b, preferencePods(4000), Options{PreferencePolicy: policy}) })
	}
}
