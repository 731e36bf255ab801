package simnodes

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// byNode indexes the pod cache by the node a pod is bound to.
const byNode = "nodeName"

func podNode(obj any) ([]string, error) {
	if pod, ok := obj.(*corev1.Pod); ok && pod.Spec.NodeName != "" {
		return []string{pod.Spec.NodeName}, nil
	}
	return nil, nil
}

// onPod queues a pod bound to a simulated node that has something to do: start, or finish its
// deletion. A pod bound before its node's registration is recorded is queued by queuePodsOn.
func (k *Kubelet) onPod(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName == "" || !podNeedsKubelet(pod) {
		return
	}
	if _, ok := k.registeredNode(pod.Spec.NodeName); ok {
		k.queue.Add(item{kind: syncPod, name: pod.Namespace + "/" + pod.Name})
	}
}

// queuePodsOn queues the pods already bound to a node that has just registered.
func (k *Kubelet) queuePodsOn(node string) {
	objs, _ := k.pods.GetIndexer().ByIndex(byNode, node)
	for _, obj := range objs {
		k.onPod(obj)
	}
}

func podNeedsKubelet(pod *corev1.Pod) bool {
	return pod.DeletionTimestamp != nil || pod.Status.Phase == corev1.PodPending || pod.Status.Phase == ""
}

// syncPod plays the kubelet's part for one pod: a new pod starts (Running and Ready at once: the
// containers are imaginary), and a pod being deleted finishes its termination, which is what lets
// a graceful deletion or an eviction complete. It works from the cached pod: a conflict means the
// pod changed, and the change brings it back through onPod.
func (k *Kubelet) syncPod(ctx context.Context, ns, name string) error {
	obj, ok, _ := k.pods.GetStore().GetByKey(ns + "/" + name)
	if !ok {
		return nil
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok || !podNeedsKubelet(pod) {
		return nil
	}
	if _, ok := k.registeredNode(pod.Spec.NodeName); !ok {
		return nil
	}
	if pod.DeletionTimestamp != nil {
		return k.finishPod(ctx, pod)
	}
	return k.startPod(ctx, pod)
}

func (k *Kubelet) startPod(ctx context.Context, pod *corev1.Pod) error {
	now := metav1.NewTime(k.opts.Clock())
	running := pod.DeepCopy()
	running.Status.Phase = corev1.PodRunning
	running.Status.StartTime = &now
	for _, kind := range []corev1.PodConditionType{corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		setPodCondition(running, kind, now)
	}
	_, err := k.opts.Kube.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, running, metav1.UpdateOptions{})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("start pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}

func (k *Kubelet) finishPod(ctx context.Context, pod *corev1.Pod) error {
	err := k.opts.Kube.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("finish pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}

func setPodCondition(pod *corev1.Pod, kind corev1.PodConditionType, now metav1.Time) {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == kind {
			pod.Status.Conditions[i].Status = corev1.ConditionTrue
			pod.Status.Conditions[i].Reason, pod.Status.Conditions[i].Message = "", ""
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: kind, Status: corev1.ConditionTrue, LastTransitionTime: now})
}
