package schedreplay

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// node is a test node with a hostname label and the given zone (none when empty).
func node(name, cpu, mem, zone string) Node {
	l := map[string]string{corev1.LabelHostname: name}
	if zone != "" {
		l[corev1.LabelTopologyZone] = zone
	}
	return Node{Name: name, Labels: l, Allocatable: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
		corev1.ResourcePods: resource.MustParse("110")}}
}

type podOpt func(*corev1.Pod)

func pod(name, cpu, mem string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"pod": name}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}}}}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func app(name string) podOpt { return func(p *corev1.Pod) { p.Labels["app"] = name } }

func owned(uid string) podOpt {
	return func(p *corev1.Pod) {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: uid, UID: types.UID(uid), Controller: &yes}}
	}
}

func antiAffine(appName, key string) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": appName}}}}}}
	}
}

func affine(appName, key string) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": appName}}}}}}
	}
}

func zoneSpread(appName string, skew int32, when corev1.UnsatisfiableConstraintAction) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: skew, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: when,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": appName}}})
	}
}

func tolerate(key string) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists})
	}
}

func selector(k, v string) podOpt {
	return func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{k: v} }
}

func tainted(n Node, key string) Node {
	n.Taints = []corev1.Taint{{Key: key, Effect: corev1.TaintEffectNoSchedule}}
	return n
}

func withPods(n Node, pods ...*corev1.Pod) Node {
	n.Pods = pods
	return n
}

// replicas are n pods named prefix-i with the same options.
func replicas(prefix string, n int, cpu, mem string, opts ...podOpt) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = pod(fmt.Sprintf("%s-%d", prefix, i), cpu, mem, opts...)
	}
	return out
}
