package consolidation

// Fixtures for the scenario, settle and property tests, built like Karpenter's fake cloud provider
// (karpenter-core.md section 5): hand-made instance types priced 0.1 per vCPU + 0.1 per GiB, with
// spot offerings in test-zone-1/2 and on-demand offerings in test-zone-1/2/3, real Nodes labelled as
// Karpenter labels them, and Pods bound to them. Every helper is prefixed fx so that it cannot
// collide with the other test files of the package.

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/requirements"
)

// fxNow is the decision time of every fixture: a Monday, 12:30 UTC.
var fxNow = time.Date(2026, 3, 2, 12, 30, 0, 0, time.UTC)

// fxZones are the zones of Karpenter's fake cloud provider; the provisioner accepts any zone name.
var fxZones = []string{"test-zone-1", "test-zone-2", "test-zone-3"}

// fxTypeSpec describes a hand-made instance type.
type fxTypeSpec struct {
	name      string
	cpu       string
	memory    string
	pods      int64
	arch      string
	spotZones []string
	odZones   []string
}

// fxType builds an instance type with kube-reserved 100m CPU / 10Mi and Karpenter's fake price.
func fxType(s fxTypeSpec) *instancetype.InstanceType {
	s.arch = cmp.Or(s.arch, api.ArchAMD64)
	s.pods = cmp.Or(s.pods, 110)
	if s.spotZones == nil && s.odZones == nil {
		s.spotZones, s.odZones = fxZones[:2], fxZones
	}
	cpu, mem := resource.MustParse(s.cpu), resource.MustParse(s.memory)
	price := 0.1*float64(cpu.MilliValue())/1000 + 0.1*float64(mem.Value())/(1<<30)
	it := &instancetype.InstanceType{Name: s.name,
		Capacity: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem,
			corev1.ResourcePods:             *resource.NewQuantity(s.pods, resource.DecimalSI),
			corev1.ResourceEphemeralStorage: resource.MustParse("100Gi")},
		Overhead: instancetype.Overhead{KubeReserved: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("10Mi")}},
	}
	for _, z := range s.spotZones {
		it.Offerings = append(it.Offerings, fxOffering(z, api.CapacityTypeSpot, price))
	}
	for _, z := range s.odZones {
		it.Offerings = append(it.Offerings, fxOffering(z, api.CapacityTypeOnDemand, price))
	}
	it.Requirements = requirements.New(
		requirements.NewRequirement(api.LabelInstanceType, corev1.NodeSelectorOpIn, s.name),
		requirements.NewRequirement(api.LabelArch, corev1.NodeSelectorOpIn, s.arch),
		requirements.NewRequirement(api.LabelOS, corev1.NodeSelectorOpIn, api.OSLinux),
		requirements.NewRequirement(api.LabelZone, corev1.NodeSelectorOpIn, fxUnion(s.spotZones, s.odZones)...),
		requirements.NewRequirement(api.LabelCapacityType, corev1.NodeSelectorOpIn, fxCapacityTypes(s)...),
	)
	return it
}

func fxOffering(zone, capacityType string, price float64) instancetype.Offering {
	return instancetype.Offering{Zone: zone, CapacityType: capacityType, Price: price, Available: true,
		Requirements: requirements.New(
			requirements.NewRequirement(api.LabelZone, corev1.NodeSelectorOpIn, zone),
			requirements.NewRequirement(api.LabelCapacityType, corev1.NodeSelectorOpIn, capacityType))}
}

func fxUnion(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

func fxCapacityTypes(s fxTypeSpec) []string {
	var out []string
	if len(s.spotZones) > 0 {
		out = append(out, api.CapacityTypeSpot)
	}
	if len(s.odZones) > 0 {
		out = append(out, api.CapacityTypeOnDemand)
	}
	return out
}

// fxKarpenterTypes are the default fake instance types (the two GPU types folded into one).
func fxKarpenterTypes() []*instancetype.InstanceType {
	return []*instancetype.InstanceType{
		fxType(fxTypeSpec{name: "default-instance-type", cpu: "4", memory: "4Gi", pods: 5}),
		fxType(fxTypeSpec{name: "small-instance-type", cpu: "2", memory: "2Gi", pods: 5}),
		fxType(fxTypeSpec{name: "arm-instance-type", cpu: "16", memory: "128Gi", arch: api.ArchARM64}),
		fxType(fxTypeSpec{name: "single-pod-instance-type", cpu: "4", memory: "4Gi", pods: 1}),
	}
}

// fxSizedTypes returns size-01 .. size-n: i vCPU and i GiB, so price 0.2·i, sorted by price.
func fxSizedTypes(sizes ...int) []*instancetype.InstanceType {
	out := make([]*instancetype.InstanceType, 0, len(sizes))
	for _, i := range sizes {
		out = append(out, fxType(fxTypeSpec{name: fxSizeName(i), cpu: fmt.Sprint(i), memory: fmt.Sprintf("%dGi", i)}))
	}
	return out
}

// fxSizes returns 1..n.
func fxSizes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func fxSizeName(i int) string { return fmt.Sprintf("size-%02d", i) }

// fxPrice is the price of a fixture type's offering.
func fxPrice(it *instancetype.InstanceType) float64 { return it.Offerings[0].Price }

// fxPoolOpt adjusts a NodePool before it is defaulted.
type fxPoolOpt func(*api.NodePool)

// fxPool builds a NodePool named name, allowing capacityType only, defaulted as the CRD does, with a
// 100% budget unless an option sets budgets.
func fxPool(name, capacityType string, opts ...fxPoolOpt) *api.NodePool {
	np := &api.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	np.Spec.Template.Spec.NodeClassRef = &api.NodeClassReference{Group: api.AzureGroup, Kind: api.KindAKSNodeClass, Name: "default"}
	np.Spec.Template.Spec.Requirements = []api.NodeSelectorRequirementWithMinValues{
		{Key: api.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{capacityType}}}
	np.Spec.Disruption.Budgets = []api.Budget{{Nodes: "100%"}}
	for _, o := range opts {
		o(np)
	}
	np.Default()
	return np
}

func fxPolicy(p api.ConsolidationPolicy) fxPoolOpt {
	return func(np *api.NodePool) { np.Spec.Disruption.ConsolidationPolicy = p }
}

func fxConsolidateAfter(d time.Duration) fxPoolOpt {
	return func(np *api.NodePool) { np.Spec.Disruption.ConsolidateAfter = api.NewDuration(d) }
}

func fxConsolidateNever() fxPoolOpt {
	return func(np *api.NodePool) { np.Spec.Disruption.ConsolidateAfter = api.NeverDuration() }
}

func fxExpireAfter(d time.Duration) fxPoolOpt {
	return func(np *api.NodePool) { np.Spec.Template.Spec.ExpireAfter = api.NewDuration(d) }
}

func fxBudgets(budgets ...api.Budget) fxPoolOpt {
	return func(np *api.NodePool) { np.Spec.Disruption.Budgets = budgets }
}

// fxRequire adds a requirement to the pool's template.
func fxRequire(key string, op corev1.NodeSelectorOperator, values ...string) fxPoolOpt {
	return func(np *api.NodePool) {
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
			api.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values})
	}
}

// fxBudget builds a budget; schedule "" means always active.
func fxBudget(nodes, schedule string, duration time.Duration, reasons ...api.DisruptionReason) api.Budget {
	b := api.Budget{Nodes: nodes, Reasons: reasons}
	if schedule != "" {
		b.Schedule = &schedule
		b.Duration = &metav1.Duration{Duration: duration}
	}
	return b
}

// fxCluster assembles an Input one node at a time.
type fxCluster struct {
	types   []*instancetype.InstanceType
	pools   []*api.NodePool
	nodes   []*Node
	pending []*corev1.Pod
	pdbs    []*policyv1.PodDisruptionBudget
	classes []*api.AKSNodeClass
	opts    Options
}

func newFxCluster(types []*instancetype.InstanceType, pools ...*api.NodePool) *fxCluster {
	return &fxCluster{types: types, pools: pools}
}

// typeNamed returns the fixture type of that name; it panics on a typo in a test.
func (c *fxCluster) typeNamed(name string) *instancetype.InstanceType {
	for _, it := range c.types {
		if it.Name == name {
			return it
		}
	}
	panic("fixture: no instance type " + name)
}

// node adds a Ready, initialized node of pool (the first pool when ""), created a day before fxNow,
// with pods bound to it, and returns it for further changes.
func (c *fxCluster) node(name, pool, typeName, zone, capacityType string, pods ...*corev1.Pod) *Node {
	if pool == "" {
		pool = c.pools[0].Name
	}
	n := &Node{Node: fxNodeObject(name, pool, c.typeNamed(typeName), zone, capacityType), Initialized: true}
	fxBind(n, pods...)
	c.nodes = append(c.nodes, n)
	return n
}

// fxBind binds pods to n.
func fxBind(n *Node, pods ...*corev1.Pod) {
	for _, p := range pods {
		p.Spec.NodeName = n.Node.Name
		n.Pods = append(n.Pods, p)
	}
}

func (c *fxCluster) pdb(p *policyv1.PodDisruptionBudget) *fxCluster {
	c.pdbs = append(c.pdbs, p)
	return c
}

// input returns the snapshot; nodes are deep-copied so that the cluster can be reused.
func (c *fxCluster) input() Input {
	in := Input{Now: fxNow, Options: c.opts, PodDisruptionBudgets: c.pdbs, NodeClasses: c.classes,
		PendingPods: c.pending}
	for _, p := range c.pools {
		in.NodePools = append(in.NodePools, provisioner.NodePoolInput{NodePool: p, InstanceTypes: c.types})
	}
	for _, n := range c.nodes {
		cp := *n
		cp.Node = n.Node.DeepCopy()
		cp.Pods = slices.Clone(n.Pods)
		in.Nodes = append(in.Nodes, cp)
	}
	return in
}

// fxNodeObject is a Node as Karpenter registers it: well-known labels, capacity and allocatable of
// its type, Ready since a day before fxNow.
func fxNodeObject(name, pool string, it *instancetype.InstanceType, zone, capacityType string) *corev1.Node {
	created := metav1.NewTime(fxNow.Add(-24 * time.Hour))
	labels := it.Requirements.Labels()
	for k, v := range map[string]string{api.LabelNodePool: pool, api.LabelZone: zone,
		api.LabelCapacityType: capacityType, api.LabelHostname: name, api.LabelNodeInitialized: "true",
		api.LabelNodeRegistered: "true"} {
		labels[k] = v
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: created},
		Status: corev1.NodeStatus{
			Capacity:    it.Capacity.DeepCopy(),
			Allocatable: it.Allocatable().DeepCopy(),
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
				LastTransitionTime: created}},
		},
	}
}

// fxPodOpt adjusts a pod.
type fxPodOpt func(*corev1.Pod)

// fxPod builds a running pod owned by a ReplicaSet, requesting cpu and memory.
func fxPod(name, cpu, memory string, opts ...fxPodOpt) *corev1.Pod {
	started := metav1.NewTime(fxNow.Add(-24 * time.Hour))
	controller := true
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": name},
			CreationTimestamp: started,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs-" + name,
				UID: types.UID("uid-" + name), Controller: &controller}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu),
				corev1.ResourceMemory: resource.MustParse(memory)}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &started},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// fxPods builds n pods named prefix-0 .. prefix-(n-1), all labelled app=prefix.
func fxPods(n int, prefix, cpu, memory string, opts ...fxPodOpt) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = fxPod(fmt.Sprintf("%s-%d", prefix, i), cpu, memory, append([]fxPodOpt{fxLabel("app", prefix)}, opts...)...)
	}
	return out
}

func fxLabel(k, v string) fxPodOpt { return func(p *corev1.Pod) { p.Labels[k] = v } }

func fxAnnotate(k, v string) fxPodOpt {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[k] = v
	}
}

// fxStartedAgo sets the pod's start time.
func fxStartedAgo(d time.Duration) fxPodOpt {
	return func(p *corev1.Pod) {
		t := metav1.NewTime(fxNow.Add(-d))
		p.Status.StartTime = &t
	}
}

// fxAntiAffinity makes the pod refuse a node running a pod labelled app=value.
func fxAntiAffinity(value string) fxPodOpt {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey:   api.LabelHostname,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": value}},
			}}}}
	}
}

// fxZoneSpread spreads pods labelled app=value across zones with max skew 1.
func fxZoneSpread(value string) fxPodOpt {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: api.LabelZone,
			WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": value}}}}
	}
}

// fxPDB guards pods labelled app=value; allowed is its observed status.disruptionsAllowed.
func fxPDB(name, value string, allowed int32) *policyv1.PodDisruptionBudget {
	minAvailable := intstr.FromInt32(1)
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": value}}},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed},
	}
}

// fxSummary renders each command on one line, e.g. "delete Empty [a b]" or
// "replace Underutilized [a] -> small-instance-type on-demand". The replacement's zone is left out:
// among equally priced zones the provisioner's seed picks one.
func fxSummary(plan *Plan) []string {
	out := []string{}
	for _, c := range plan.Commands {
		s := fmt.Sprintf("%s %s [%s]", c.Kind, c.Reason, strings.Join(c.Nodes, " "))
		for _, r := range fxReplacements(c) {
			s += fmt.Sprintf(" -> %s %s", r.InstanceType, r.CapacityType)
		}
		out = append(out, s)
	}
	return out
}

// fxReplacements returns a command's replacement NodeClaims, whichever field holds them.
func fxReplacements(c Command) []provisioner.NodeClaim {
	if len(c.Replacements) > 0 {
		return c.Replacements
	}
	if c.Replacement != nil {
		return []provisioner.NodeClaim{*c.Replacement}
	}
	return nil
}

// fxRemoved returns the nodes the plan removes, sorted.
func fxRemoved(plan *Plan) []string {
	out := []string{}
	for _, c := range plan.Commands {
		out = append(out, c.Nodes...)
	}
	slices.Sort(out)
	return out
}

// fxRemovedFor returns the nodes removed for one reason, sorted.
func fxRemovedFor(plan *Plan, reason Reason) []string {
	out := []string{}
	for _, c := range plan.Commands {
		if c.Reason == reason {
			out = append(out, c.Nodes...)
		}
	}
	slices.Sort(out)
	return out
}

// fxBlockedNodes returns the names of the plan's blocked nodes, sorted.
func fxBlockedNodes(plan *Plan) []string {
	out := []string{}
	for _, b := range plan.Blocked {
		out = append(out, b.Node)
	}
	slices.Sort(out)
	return out
}

// fxNames returns n node names prefix-00 .. so that they sort in creation order.
func fxNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%02d", prefix, i)
	}
	return out
}

// fxClaim gives n a NodeClaim of the same name, created with the node, and returns it.
func fxClaim(n *Node) *api.NodeClaim {
	nc := &api.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: n.Node.Name, Labels: maps.Clone(n.Node.Labels),
		CreationTimestamp: n.Node.CreationTimestamp}}
	nc.Spec.NodeClassRef = &api.NodeClassReference{Group: api.AzureGroup, Kind: api.KindAKSNodeClass, Name: "default"}
	nc.Status.NodeName = n.Node.Name
	n.NodeClaim = nc
	return nc
}

// fxClass is the AKSNodeClass "default" with resolved images and Kubernetes version.
func fxClass(kubernetesVersion string, images ...string) *api.AKSNodeClass {
	nc := &api.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	nc.Default()
	nc.Status.KubernetesVersion = kubernetesVersion
	for _, id := range images {
		nc.Status.Images = append(nc.Status.Images, api.NodeImage{ID: id})
	}
	return nc
}
