package snapshot_test

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

const d2 = "Standard_D2s_v3"

type nodeOpt func(*corev1.Node)

func node(name string, opts ...nodeOpt) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0)}}
	for _, o := range opts {
		o(n)
	}
	return n
}

func ready(at time.Time) nodeOpt {
	return func(n *corev1.Node) {
		n.Status.Conditions = append(n.Status.Conditions,
			corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at)})
	}
}

func taint(key string, effect corev1.TaintEffect) nodeOpt {
	return func(n *corev1.Node) { n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Effect: effect}) }
}

func providerID(id string) nodeOpt { return func(n *corev1.Node) { n.Spec.ProviderID = id } }

func labels(kv ...string) nodeOpt {
	return func(n *corev1.Node) {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func deletingNode(n *corev1.Node) { n.DeletionTimestamp = &metav1.Time{Time: t0} }

type claimOpt func(*api.NodeClaim)

func claim(name string, opts ...claimOpt) *api.NodeClaim {
	nc := &api.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: map[string]string{api.LabelNodePool: "default", api.LabelInstanceType: d2}}}
	for _, o := range opts {
		o(nc)
	}
	return nc
}

func condition(kind string, status metav1.ConditionStatus, at time.Time) claimOpt {
	return func(nc *api.NodeClaim) {
		nc.Status.Conditions = append(nc.Status.Conditions, metav1.Condition{Type: kind, Status: status, LastTransitionTime: metav1.NewTime(at)})
	}
}

func claimProviderID(id string) claimOpt {
	return func(nc *api.NodeClaim) { nc.Status.ProviderID = id }
}

func claimNode(name string) claimOpt { return func(nc *api.NodeClaim) { nc.Status.NodeName = name } }

func pod(name, nodeName string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: metav1.NewTime(t0)},
		Spec: corev1.PodSpec{NodeName: nodeName}}
}

// pools is one NodePool "default" whose catalogue holds d2.
func pools() []provisioner.NodePoolInput {
	pool := &api.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	pool.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "agent-not-ready", Effect: corev1.TaintEffectNoSchedule}}
	return []provisioner.NodePoolInput{{NodePool: pool, InstanceTypes: []*instancetype.InstanceType{{Name: d2,
		Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}}}}
}
