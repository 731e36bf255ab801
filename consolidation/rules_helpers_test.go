package consolidation

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/requirements"
)

// ruleNow is a Wednesday noon, UTC.
var ruleNow = time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)

// ruleType is a hand-made instance type of family D offered on demand in eastus-1 and eastus-2 at
// price, and as spot in eastus-1 at half of it.
func ruleType(name string, price float64) *instancetype.InstanceType {
	offer := func(zone, ct string, p float64) instancetype.Offering {
		return instancetype.Offering{Zone: zone, CapacityType: ct, Price: p, Available: true,
			Requirements: requirements.New(
				requirements.NewRequirement(api.LabelZone, corev1.NodeSelectorOpIn, zone),
				requirements.NewRequirement(api.LabelCapacityType, corev1.NodeSelectorOpIn, ct))}
	}
	return &instancetype.InstanceType{
		Name: name,
		Offerings: instancetype.Offerings{
			offer("eastus-1", api.CapacityTypeSpot, price/2),
			offer("eastus-1", api.CapacityTypeOnDemand, price),
			offer("eastus-2", api.CapacityTypeOnDemand, price),
		},
		Requirements: requirements.New(
			requirements.NewRequirement(api.LabelInstanceType, corev1.NodeSelectorOpIn, name),
			requirements.NewRequirement(api.LabelSKUFamily, corev1.NodeSelectorOpIn, "D"),
			requirements.NewRequirement(api.LabelArch, corev1.NodeSelectorOpIn, api.ArchAMD64),
			requirements.NewRequirement(api.LabelZone, corev1.NodeSelectorOpIn, "eastus-1", "eastus-2"),
			requirements.NewRequirement(api.LabelCapacityType, corev1.NodeSelectorOpIn, api.CapacityTypeSpot, api.CapacityTypeOnDemand),
		),
	}
}

// rulePool is a NodePool using node class "default", changed by muts.
func rulePool(name string, muts ...func(*api.NodePool)) *api.NodePool {
	p := &api.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: api.NodePoolSpec{Template: api.NodeClaimTemplate{Spec: api.NodeClaimTemplateSpec{
			NodeClassRef: &api.NodeClassReference{Group: api.AzureGroup, Kind: api.KindAKSNodeClass, Name: "default"},
		}}},
	}
	for _, m := range muts {
		m(p)
	}
	return p
}

func withBudgets(b ...api.Budget) func(*api.NodePool) {
	return func(p *api.NodePool) { p.Spec.Disruption.Budgets = b }
}

// ruleBudget is a budget of nodes, optionally inside schedule for d, for reasons.
func ruleBudget(nodes, schedule string, d time.Duration, reasons ...api.DisruptionReason) api.Budget {
	b := api.Budget{Nodes: nodes, Reasons: reasons}
	if schedule != "" {
		b.Schedule = &schedule
	}
	if d != 0 {
		b.Duration = &metav1.Duration{Duration: d}
	}
	return b
}

// ruleNode is an initialized, Ready node of pool created two days before ruleNow, with the usual
// labels (empty values are left out).
func ruleNode(name, pool, typeName, zone, capacityType string, pods ...*corev1.Pod) *Node {
	labels := map[string]string{}
	for k, v := range map[string]string{api.LabelNodePool: pool, api.LabelInstanceType: typeName,
		api.LabelZone: zone, api.LabelCapacityType: capacityType} {
		if v != "" {
			labels[k] = v
		}
	}
	return &Node{
		Node: &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: metav1.NewTime(ruleNow.Add(-48 * time.Hour))},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
				{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		},
		Pods:        pods,
		Initialized: true,
	}
}

// ruleClaim is a NodeClaim for node created at created.
func ruleClaim(name string, created time.Time) *api.NodeClaim {
	return &api.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)}}
}

// rulePod is a running pod in namespace default, labelled app=<app>, started an hour before ruleNow.
func rulePod(name, app string, muts ...func(*corev1.Pod)) *corev1.Pod {
	start := metav1.NewTime(ruleNow.Add(-time.Hour))
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": app},
			Annotations: map[string]string{}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &start},
	}
	for _, m := range muts {
		m(p)
	}
	return p
}

func annotated(k, v string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Annotations[k] = v }
}

func ownedBy(kind, apiVersion string) func(*corev1.Pod) {
	yes := true
	return func(p *corev1.Pod) {
		p.OwnerReferences = append(p.OwnerReferences, metav1.OwnerReference{Kind: kind, APIVersion: apiVersion, Name: "owner", Controller: &yes})
	}
}

func inPhase(phase corev1.PodPhase) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Status.Phase = phase }
}

func podReady(status corev1.ConditionStatus) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: status})
	}
}

// rulePDB guards app=<app> pods in namespace default.
func rulePDB(name, app string, allowed int32) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed},
	}
}

// ruleInput is an Input at ruleNow holding nodes, each pool with types, and node class "default".
func ruleInput(pools []*api.NodePool, types []*instancetype.InstanceType, nodes ...*Node) *Input {
	in := &Input{Now: ruleNow, NodeClasses: []*api.AKSNodeClass{{ObjectMeta: metav1.ObjectMeta{Name: "default"}}}}
	for _, p := range pools {
		in.NodePools = append(in.NodePools, provisioner.NodePoolInput{NodePool: p, InstanceTypes: types})
	}
	for _, n := range nodes {
		in.Nodes = append(in.Nodes, *n)
	}
	return in
}

// ruleCandidate is what collect would build for n in pool, without collect.
func ruleCandidate(n *Node, pool *api.NodePool, class *api.AKSNodeClass, it *instancetype.InstanceType) *candidate {
	labels := n.Node.Labels
	return &candidate{name: n.Node.Name, node: n, pool: pool, class: class, instanceType: it,
		zone: labels[api.LabelZone], capacityType: labels[api.LabelCapacityType]}
}
