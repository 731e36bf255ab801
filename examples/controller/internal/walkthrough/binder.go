package walkthrough

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// binder stands in for kube-scheduler, minimally: a pending pod is bound to the Ready,
// schedulable node with the least room left that fits its CPU and memory requests, matches its
// node selector and whose NoSchedule/NoExecute taints it tolerates; a pod that fits nowhere is
// marked PodScheduled=False/Unschedulable, which is what the controller watches for.
type binder struct{ kube kubernetes.Interface }

func (b *binder) step(ctx context.Context) error {
	nodes, err := b.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	pods, err := b.kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	free := freeCapacity(nodes.Items, pods.Items)
	for i := range pods.Items {
		pod := &pods.Items[i]
		if pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil {
			continue
		}
		if node := pickNode(pod, nodes.Items, free); node != "" {
			free[node] = subtract(free[node], requests(pod))
			err = b.bind(ctx, pod, node)
		} else {
			err = b.markUnschedulable(ctx, pod, len(nodes.Items))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// freeCapacity is allocatable minus the requests of the pods bound to each node.
func freeCapacity(nodes []corev1.Node, pods []corev1.Pod) map[string]corev1.ResourceList {
	free := map[string]corev1.ResourceList{}
	for _, n := range nodes {
		free[n.Name] = n.Status.Allocatable.DeepCopy()
	}
	for i := range pods {
		if f, ok := free[pods[i].Spec.NodeName]; ok && pods[i].Status.Phase != corev1.PodSucceeded && pods[i].Status.Phase != corev1.PodFailed {
			free[pods[i].Spec.NodeName] = subtract(f, requests(&pods[i]))
		}
	}
	return free
}

func pickNode(pod *corev1.Pod, nodes []corev1.Node, free map[string]corev1.ResourceList) string {
	var fits []corev1.Node
	for _, n := range nodes {
		if schedulable(&n) && tolerated(pod, n.Spec.Taints) && selects(pod, n.Labels) && fitsIn(requests(pod), free[n.Name]) {
			fits = append(fits, n)
		}
	}
	if len(fits) == 0 {
		return ""
	}
	best := slices.MinFunc(fits, func(a, b corev1.Node) int {
		ca, cb := free[a.Name][corev1.ResourceCPU], free[b.Name][corev1.ResourceCPU]
		return cmp.Or(ca.Cmp(cb), cmp.Compare(a.Name, b.Name))
	})
	return best.Name
}

func (b *binder) bind(ctx context.Context, pod *corev1.Pod, node string) error {
	bound := pod.DeepCopy()
	bound.Spec.NodeName = node
	setScheduled(bound, corev1.ConditionTrue, "", "")
	if _, err := b.kube.CoreV1().Pods(pod.Namespace).Update(ctx, bound, metav1.UpdateOptions{}); ignoreConflict(err) != nil {
		return fmt.Errorf("bind %s/%s to %s: %w", pod.Namespace, pod.Name, node, err)
	}
	return nil
}

func (b *binder) markUnschedulable(ctx context.Context, pod *corev1.Pod, nodes int) error {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable {
			return nil
		}
	}
	marked := pod.DeepCopy()
	setScheduled(marked, corev1.ConditionFalse, corev1.PodReasonUnschedulable, fmt.Sprintf("0/%d nodes are available", nodes))
	if _, err := b.kube.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, marked, metav1.UpdateOptions{}); ignoreConflict(err) != nil {
		return fmt.Errorf("mark %s/%s unschedulable: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}

func setScheduled(pod *corev1.Pod, status corev1.ConditionStatus, reason, msg string) {
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: status, Reason: reason, Message: msg}
	i := slices.IndexFunc(pod.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.PodScheduled })
	if i < 0 {
		pod.Status.Conditions = append(pod.Status.Conditions, cond)
		return
	}
	pod.Status.Conditions[i] = cond
}

func schedulable(n *corev1.Node) bool {
	if n.Spec.Unschedulable || n.DeletionTimestamp != nil {
		return false
	}
	return slices.ContainsFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool {
		return c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
	})
}

// tolerated reports whether the pod tolerates every NoSchedule and NoExecute taint.
func tolerated(pod *corev1.Pod, taints []corev1.Taint) bool {
	for _, t := range taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		if !slices.ContainsFunc(pod.Spec.Tolerations, func(tol corev1.Toleration) bool { return tolerates(tol, t) }) {
			return false
		}
	}
	return true
}

func tolerates(tol corev1.Toleration, t corev1.Taint) bool {
	keyOK := tol.Key == t.Key || (tol.Key == "" && tol.Operator == corev1.TolerationOpExists)
	valueOK := tol.Operator == corev1.TolerationOpExists || tol.Value == t.Value
	return keyOK && valueOK && (tol.Effect == "" || tol.Effect == t.Effect)
}

func selects(pod *corev1.Pod, labels map[string]string) bool {
	for k, v := range pod.Spec.NodeSelector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func requests(pod *corev1.Pod) corev1.ResourceList {
	out := corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}
	for _, c := range pod.Spec.Containers {
		for name, q := range c.Resources.Requests {
			sum := out[name].DeepCopy()
			sum.Add(q)
			out[name] = sum
		}
	}
	return out
}

func fitsIn(req, free corev1.ResourceList) bool {
	for name, q := range req {
		if f, ok := free[name]; !ok || f.Cmp(q) < 0 {
			return false
		}
	}
	return true
}

func subtract(a, b corev1.ResourceList) corev1.ResourceList {
	out := a.DeepCopy()
	for name, q := range b {
		left := out[name].DeepCopy()
		left.Sub(q)
		out[name] = left
	}
	return out
}
