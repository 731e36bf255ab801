package simnodes

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// runPods plays the kubelet's part for pods bound to the simulated nodes: a new pod starts
// (Running and Ready at once: the containers are imaginary), and a pod being deleted finishes
// its termination, which is what lets a graceful deletion or an eviction complete.
func (k *Kubelet) runPods(ctx context.Context) error {
	var errs []error
	for _, obj := range k.pods.GetStore().List() {
		pod, ok := obj.(*corev1.Pod)
		if !ok || k.nodes[pod.Spec.NodeName] == nil || k.nodes[pod.Spec.NodeName].registered.IsZero() {
			continue
		}
		switch {
		case pod.DeletionTimestamp != nil:
			errs = append(errs, k.finishPod(ctx, pod))
		case pod.Status.Phase == corev1.PodPending || pod.Status.Phase == "":
			errs = append(errs, k.startPod(ctx, pod))
		}
	}
	return errors.Join(errs...)
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
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) { // the next poll retries
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
