package provisioner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// gen draws random but valid inputs: catalogues, pools, nodes, in-flight claims, daemons, volumes
// and pods with every kind of constraint, from a small vocabulary so that they interact.
type gen struct{ r *rand.Rand }

func (g gen) pick(vs ...string) string { return vs[g.r.IntN(len(vs))] }
func (g gen) chance(p float64) bool    { return g.r.Float64() < p }

var genLabels = []string{"a", "b", "c"}

func (g gen) catalogue() []*instancetype.InstanceType {
	n := 2 + g.r.IntN(5)
	var out []*instancetype.InstanceType
	for i := range n {
		cpu := []string{"1", "2", "4", "8", "16"}[g.r.IntN(5)]
		mem := []string{"2Gi", "4Gi", "8Gi", "32Gi"}[g.r.IntN(4)]
		spec := typeSpec{name: fmt.Sprintf("type-%d", i), cpu: cpu, memory: mem, pods: int64(2 + g.r.IntN(30)),
			arch: g.pick(api.ArchAMD64, api.ArchARM64)}
		if g.chance(0.2) {
			spec.gpus = 1
		}
		spec.spotZones = g.zones()
		spec.odZones = g.zones()
		if len(spec.spotZones)+len(spec.odZones) == 0 {
			spec.odZones = testZones[:1]
		}
		it := fakeType(spec)
		for j := range it.Offerings {
			if g.chance(0.1) {
				it.Offerings[j].Available = false
			}
			if g.chance(0.3) {
				it.Offerings[j].Price *= 0.5
			}
		}
		out = append(out, it)
	}
	return out
}

func (g gen) zones() []string {
	var out []string
	for _, z := range testZones {
		if g.chance(0.6) {
			out = append(out, z)
		}
	}
	return out
}

func (g gen) pools(types []*instancetype.InstanceType) []NodePoolInput {
	n := g.r.IntN(3)
	if g.chance(0.9) {
		n++
	}
	var out []NodePoolInput
	for i := range n {
		var reqs []api.NodeSelectorRequirementWithMinValues
		if g.chance(0.3) {
			reqs = append(reqs, req(api.LabelZone, corev1.NodeSelectorOpIn, g.zones()[0:]...))
			if len(reqs[len(reqs)-1].Values) == 0 {
				reqs = reqs[:len(reqs)-1]
			}
		}
		if g.chance(0.3) {
			reqs = append(reqs, req(api.LabelArch, corev1.NodeSelectorOpIn, g.pick(api.ArchAMD64, api.ArchARM64)))
		}
		if g.chance(0.2) {
			two := 2
			r := req(api.LabelInstanceType, corev1.NodeSelectorOpExists)
			r.MinValues = &two
			reqs = append(reqs, r)
		}
		np := nodePool(fmt.Sprintf("pool-%d", i), reqs...)
		if g.chance(0.3) {
			np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: g.pick(genLabels...), Effect: corev1.TaintEffectNoSchedule}}
		}
		if g.chance(0.2) {
			np.Spec.Template.Spec.Taints = append(np.Spec.Template.Spec.Taints, corev1.Taint{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule})
		}
		if g.chance(0.3) {
			np.Spec.Template.ObjectMeta.Labels = map[string]string{"team": g.pick(genLabels...)}
		}
		if g.chance(0.4) {
			np.Spec.Limits = corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(int64(2+g.r.IntN(30)), resource.DecimalSI)}
			if g.chance(0.3) {
				np.Spec.Limits[resourceNodes] = *resource.NewQuantity(int64(1+g.r.IntN(4)), resource.DecimalSI)
			}
		}
		if g.chance(0.5) {
			w := int32(1 + g.r.IntN(100))
			np.Spec.Weight = &w
		}
		out = append(out, NodePoolInput{NodePool: np, InstanceTypes: types})
	}
	return out
}

func (g gen) podSpec(name string) *corev1.Pod {
	cpu := []string{"100m", "250m", "500m", "1", "1500m", "3"}[g.r.IntN(6)]
	mem := []string{"64Mi", "256Mi", "1Gi", "2Gi", "6Gi"}[g.r.IntN(5)]
	p := pod(name, cpu, mem, withLabels("app", g.pick(genLabels...)))
	g.nodeConstraints(p)
	g.topology(p)
	if g.chance(0.1) {
		withHostPort(int32(8000 + g.r.IntN(2)))(p)
	}
	if g.chance(0.3) {
		withTolerations(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: g.pick(genLabels...)})(p)
	}
	if g.chance(0.05) {
		withRequest("nvidia.com/gpu", "1")(p)
	}
	if g.chance(0.05) {
		p.Spec.InitContainers = []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}
	}
	return p
}

func (g gen) nodeConstraints(p *corev1.Pod) {
	if g.chance(0.2) {
		withNodeSelector(api.LabelZone, g.pick(testZones...))(p)
	}
	if g.chance(0.1) {
		withNodeSelector("team", g.pick(genLabels...))(p)
	}
	if g.chance(0.2) {
		withRequiredTerms(term(nsr(api.LabelArch, corev1.NodeSelectorOpIn, g.pick(api.ArchAMD64, api.ArchARM64))),
			term(nsr(api.LabelCapacityType, corev1.NodeSelectorOpIn, g.pick(api.CapacityTypeSpot, api.CapacityTypeOnDemand))))(p)
	}
	if g.chance(0.2) {
		withPreferredNode(int32(1+g.r.IntN(100)), nsr(api.LabelZone, corev1.NodeSelectorOpIn, g.pick(testZones...)))(p)
	}
}

func (g gen) topology(p *corev1.Pod) {
	key := func() string { return g.pick(api.LabelZone, api.LabelHostname) }
	sel := func() *metav1.LabelSelector { return selector("app", g.pick(genLabels...)) }
	if g.chance(0.25) {
		when := corev1.DoNotSchedule
		if g.chance(0.3) {
			when = corev1.ScheduleAnyway
		}
		withSpread(key(), int32(1+g.r.IntN(3)), when, sel())(p)
		if when == corev1.DoNotSchedule && g.chance(0.2) {
			withMinDomains(int32(1 + g.r.IntN(3)))(p)
		}
	}
	if g.chance(0.15) {
		withAntiAffinity(key(), sel())(p)
	}
	if g.chance(0.1) {
		withPodAffinity(key(), sel())(p)
	}
	if g.chance(0.1) {
		withPreferredAnti(int32(1+g.r.IntN(100)), key(), sel())(p)
	}
}

func (g gen) nodes(types []*instancetype.InstanceType, pools []NodePoolInput) []ExistingNode {
	var out []ExistingNode
	for i := range g.r.IntN(4) {
		zone := g.pick(testZones...)
		var bound []*corev1.Pod
		for j := range g.r.IntN(4) {
			bound = append(bound, g.podSpec(fmt.Sprintf("bound-%d-%d", i, j)))
		}
		n := node(fmt.Sprintf("node-%d", i), zone, g.pick("2", "4", "8"), g.pick("4Gi", "16Gi"), bound...)
		if len(pools) > 0 && g.chance(0.5) {
			n.NodePool = pools[g.r.IntN(len(pools))].NodePool.Name
			n.Node.Status.Capacity = n.Node.Status.Allocatable
		}
		if g.chance(0.2) {
			n.Node.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "a", Effect: corev1.TaintEffectNoSchedule}}
		}
		if g.chance(0.1) {
			n.Node.Spec.Unschedulable = true
		}
		n.Initialized = g.chance(0.8)
		out = append(out, n)
	}
	return out
}

func (g gen) inFlight(pools []NodePoolInput) []InFlightClaim {
	if len(pools) == 0 || !g.chance(0.3) {
		return nil
	}
	p := pools[0]
	it := p.InstanceTypes[g.r.IntN(len(p.InstanceTypes))]
	o := it.Offerings[g.r.IntN(len(it.Offerings))]
	return []InFlightClaim{{Name: "inflight-0", NodePool: p.NodePool.Name, InstanceType: it.Name, Zone: o.Zone, CapacityType: o.CapacityType,
		Pods: []*corev1.Pod{g.podSpec("nominated-0")}}}
}

func (g gen) daemons() []*appsv1.DaemonSet {
	var out []*appsv1.DaemonSet
	if g.chance(0.4) {
		out = append(out, daemonSet("ds-a", "100m", "128Mi"))
	}
	if g.chance(0.1) {
		out = append(out, daemonSet("ds-port", "50m", "", 8000))
	}
	return out
}

func (g gen) volumes(pods []*corev1.Pod) ([]*corev1.PersistentVolumeClaim, []*corev1.PersistentVolume) {
	var pvcs []*corev1.PersistentVolumeClaim
	var pvs []*corev1.PersistentVolume
	for i, p := range pods {
		if !g.chance(0.1) {
			continue
		}
		name := fmt.Sprintf("data-%d", i)
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}})
		if g.chance(0.1) {
			continue // the claim is missing
		}
		pvcs = append(pvcs, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: p.Namespace},
			Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-" + name}})
		pvs = append(pvs, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-" + name},
			Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{term(nsr(api.LabelZone, corev1.NodeSelectorOpIn, g.pick(testZones...)))}}}}})
	}
	return pvcs, pvs
}

func (g gen) input() Input {
	types := g.catalogue()
	pools := g.pools(types)
	var ps []*corev1.Pod
	for i := range g.r.IntN(40) {
		ps = append(ps, g.podSpec(fmt.Sprintf("pod-%d", i)))
	}
	in := Input{Pods: ps, NodePools: pools, Nodes: g.nodes(types, pools), InFlight: g.inFlight(pools), DaemonSets: g.daemons()}
	in.PersistentVolumeClaims, in.PersistentVolumes = g.volumes(ps)
	in.Options.PreferencePolicy = []PreferencePolicy{PreferenceCostAware, PreferenceRespect, PreferenceIgnore}[g.r.IntN(3)]
	if g.chance(0.2) {
		in.Options.MinValuesPolicy = MinValuesBestEffort
	}
	if g.chance(0.2) {
		in.CapacityBuffers = []CapacityBuffer{{Name: "headroom", Replicas: 1 + g.r.IntN(3),
			PodTemplate: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Labels: map[string]string{"app": "buffer"}},
				Spec: pod("x", "500m", "512Mi").Spec}}}
	}
	in.Options.Seed = g.r.Uint64()
	return in
}

// checkSolve solves in twice and checks the plan with the independent checker and for determinism.
func checkSolve(t *testing.T, in Input) {
	t.Helper()
	plan, err := Solve(in)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	if errs := checkPlan(in, plan); len(errs) > 0 {
		dump, _ := json.MarshalIndent(plan, "", " ")
		t.Fatalf("invalid plan:\n%v\nplan: %s", errs, dump)
	}
	again, err := Solve(in)
	if err != nil {
		t.Fatalf("second Solve: %v", err)
	}
	plan.Stats.SolveMillis, again.Stats.SolveMillis = 0, 0
	a, _ := json.Marshal(plan)
	b, _ := json.Marshal(again)
	if !bytes.Equal(a, b) {
		t.Fatalf("two solves of one input differ:\n%s\n%s", a, b)
	}
}

// TestProperty solves random inputs and checks every plan: no resource of any node overcommitted,
// every required constraint met, no NodePool limit exceeded, every pod placed or explained, the
// bound below the price, and the same plan twice.
func TestProperty(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 50
	}
	for i := range n {
		in := gen{rand.New(rand.NewPCG(uint64(i), 7))}.input()
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkSolve(t, in) })
	}
}

// FuzzSolve drives the same generator from fuzzed seeds.
func FuzzSolve(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1000} {
		f.Add(s, s*7)
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		checkSolve(t, gen{rand.New(rand.NewPCG(a, b))}.input())
	})
}
