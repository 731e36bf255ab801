package snapshot

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DefaultMaxPods is how many pods WorkloadPods makes at most when the caller sets no bound: ten
// times the pods of the largest clusters napkit is measured on, and small enough that the pods fit
// in a few hundred MB.
const DefaultMaxPods = 100_000

// ErrTooManyPods is wrapped by the error of a workload whose replicas would pass the bound.
var ErrTooManyPods = errors.New("snapshot: too many pods")

// ErrBadWorkload is wrapped by the error of a workload that cannot be expanded (a negative count, a
// kind that has no replicas).
var ErrBadWorkload = errors.New("snapshot: bad workload")

// Workload is a Deployment, ReplicaSet or StatefulSet (pods: spec.replicas, default 1) or Job
// (spec.parallelism, default 1), read far enough to count its pods before making any.
type Workload struct {
	Kind     string
	Meta     metav1.ObjectMeta
	Field    string // "spec.replicas" or "spec.parallelism"
	Count    int64
	Template corev1.PodTemplateSpec
}

// WorkloadOf reads obj, one of *appsv1.Deployment, *appsv1.ReplicaSet, *appsv1.StatefulSet or
// *batchv1.Job. A negative count is an error wrapping ErrBadWorkload naming the field and value.
func WorkloadOf(obj runtime.Object) (Workload, error) {
	var w Workload
	var count *int32
	switch o := obj.(type) {
	case *appsv1.Deployment:
		w, count = Workload{Kind: "Deployment", Meta: o.ObjectMeta, Field: "spec.replicas", Template: o.Spec.Template}, o.Spec.Replicas
	case *appsv1.ReplicaSet:
		w, count = Workload{Kind: "ReplicaSet", Meta: o.ObjectMeta, Field: "spec.replicas", Template: o.Spec.Template}, o.Spec.Replicas
	case *appsv1.StatefulSet:
		w, count = Workload{Kind: "StatefulSet", Meta: o.ObjectMeta, Field: "spec.replicas", Template: o.Spec.Template}, o.Spec.Replicas
	case *batchv1.Job:
		w, count = Workload{Kind: "Job", Meta: o.ObjectMeta, Field: "spec.parallelism", Template: o.Spec.Template}, o.Spec.Parallelism
	default:
		return w, fmt.Errorf("%w: %T has no replicas", ErrBadWorkload, obj)
	}
	w.Count = 1
	if count != nil {
		w.Count = int64(*count)
	}
	if w.Count < 0 {
		return w, fmt.Errorf("%w: %s: %s: must not be negative, got %d", ErrBadWorkload, w.name(), w.Field, w.Count)
	}
	return w, nil
}

func (w Workload) name() string {
	if w.Meta.Namespace == "" {
		return fmt.Sprintf("%s %s", w.Kind, w.Meta.Name)
	}
	return fmt.Sprintf("%s %s/%s", w.Kind, w.Meta.Namespace, w.Meta.Name)
}

// Budget bounds how many pods workloads expand to, across calls: Read spends from it and refuses a
// workload that would overdraw it, before making any of its pods.
type Budget struct {
	// Max is the bound; 0 means DefaultMaxPods.
	Max  int64
	used int64
}

// Spend charges n pods of w, or returns an error wrapping ErrTooManyPods that names the workload,
// its field and value, and the bound.
func (b *Budget) Spend(w Workload) error {
	limit := b.Max
	if limit <= 0 {
		limit = DefaultMaxPods
	}
	if w.Count > limit-b.used {
		return fmt.Errorf("%w: %s: %s: %d pods would make %d in all, more than the %d allowed (raise the bound with --max-pods or Budget.Max)",
			ErrTooManyPods, w.name(), w.Field, w.Count, b.used+w.Count, limit)
	}
	b.used += w.Count
	return nil
}

// Pods makes the workload's pods: replica i is named <workload>-<i>, in the workload's namespace,
// with the template's metadata and spec. Spend first: Pods allocates Count pods.
func (w Workload) Pods() []*corev1.Pod {
	pods := make([]*corev1.Pod, w.Count)
	for i := range pods {
		pod := &corev1.Pod{ObjectMeta: *w.Template.ObjectMeta.DeepCopy(), Spec: *w.Template.Spec.DeepCopy()}
		pod.Name = fmt.Sprintf("%s-%d", w.Meta.Name, i)
		pod.Namespace = w.Meta.Namespace
		pods[i] = pod
	}
	return pods
}

// WorkloadPods expands workloads (see WorkloadOf) to their pods, at most maxPods in all (0 means
// DefaultMaxPods). Every workload is read and counted before any pod is made, so a bound that would
// be passed costs no memory.
func WorkloadPods(workloads []runtime.Object, maxPods int64) ([]*corev1.Pod, error) {
	budget := &Budget{Max: maxPods}
	read := make([]Workload, 0, len(workloads))
	for _, obj := range workloads {
		w, err := WorkloadOf(obj)
		if err != nil {
			return nil, err
		}
		if err := budget.Spend(w); err != nil {
			return nil, err
		}
		read = append(read, w)
	}
	var pods []*corev1.Pod
	for _, w := range read {
		pods = append(pods, w.Pods()...)
	}
	return pods, nil
}
