package walkthrough

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// replicator stands in for the Deployment and ReplicaSet controllers, minimally: each Deployment
// keeps spec.replicas live pods from its template (an evicted pod is replaced), and the pods of a
// deleted Deployment are deleted (the garbage collector's cascade).
type replicator struct{ kube kubernetes.Interface }

func (r *replicator) step(ctx context.Context) error {
	deps, err := r.kube.AppsV1().Deployments(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	pods, err := r.kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	owned := map[types.UID][]corev1.Pod{}
	for _, pod := range pods.Items {
		if ref := metav1.GetControllerOf(&pod); ref != nil && ref.Kind == "Deployment" && pod.DeletionTimestamp == nil {
			owned[ref.UID] = append(owned[ref.UID], pod)
		}
	}
	for i := range deps.Items {
		d := &deps.Items[i]
		if err := r.scale(ctx, d, owned[d.UID]); err != nil {
			return err
		}
		delete(owned, d.UID)
	}
	for _, orphans := range owned {
		if err := r.deletePods(ctx, orphans); err != nil {
			return err
		}
	}
	return nil
}

// scale creates or deletes pods until the Deployment has spec.replicas of them.
func (r *replicator) scale(ctx context.Context, d *appsv1.Deployment, pods []corev1.Pod) error {
	want := 1
	if d.Spec.Replicas != nil {
		want = int(*d.Spec.Replicas)
	}
	for range want - len(pods) {
		if _, err := r.kube.CoreV1().Pods(d.Namespace).Create(ctx, podFor(d), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create pod for deployment %s: %w", d.Name, err)
		}
	}
	if len(pods) > want {
		slices.SortFunc(pods, func(a, b corev1.Pod) int { return b.CreationTimestamp.Compare(a.CreationTimestamp.Time) })
		return r.deletePods(ctx, pods[:len(pods)-want])
	}
	return nil
}

func podFor(d *appsv1.Deployment) *corev1.Pod {
	t := d.Spec.Template
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: d.Name + "-", Namespace: d.Namespace, Labels: t.Labels,
			Annotations: t.Annotations, OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d,
				appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
		Spec:   *t.Spec.DeepCopy(),
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
}

func (r *replicator) deletePods(ctx context.Context, pods []corev1.Pod) error {
	for _, pod := range pods {
		err := r.kube.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete pod %s: %w", pod.Name, err)
		}
	}
	return nil
}

func ignoreConflict(err error) error {
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
