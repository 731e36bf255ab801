package main

import (
	"errors"
	"fmt"
	"sort"

	"github.com/napkit/napkit/manifest"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// clusterObjects are the Kubernetes objects `napkit plan` reads besides NodePools and node classes.
type clusterObjects struct {
	pending    []*corev1.Pod
	bound      map[string][]*corev1.Pod
	nodes      []*corev1.Node
	daemonSets []*appsv1.DaemonSet
	pvcs       []*corev1.PersistentVolumeClaim
	pvs        []*corev1.PersistentVolume
}

// decodeObjects turns the manifests' other objects into pods (workloads expanded to their replicas),
// nodes, DaemonSets and volumes. Kinds plan does not use (PodDisruptionBudgets, Services, ...) are
// skipped.
func decodeObjects(objects []manifest.Object) (*clusterObjects, error) {
	out := &clusterObjects{bound: map[string][]*corev1.Pod{}}
	for _, obj := range objects {
		if err := out.add(obj); err != nil {
			return nil, objectErr(obj, err)
		}
	}
	sort.Slice(out.nodes, func(i, j int) bool { return out.nodes[i].Name < out.nodes[j].Name })
	return out, nil
}

func (c *clusterObjects) add(obj manifest.Object) error {
	switch obj.Kind.Kind {
	case "Pod":
		pod := &corev1.Pod{}
		if err := obj.Decode(pod); err != nil {
			return err
		}
		c.addPod(pod)
	case "Deployment", "ReplicaSet", "StatefulSet", "Job":
		meta, replicas, template, err := workload(obj)
		if err != nil {
			return err
		}
		for i := range replicas {
			c.addPod(podFromTemplate(meta, template, i))
		}
	case "DaemonSet":
		return decodeInto(obj, &c.daemonSets)
	case "Node":
		return decodeInto(obj, &c.nodes)
	case "PersistentVolumeClaim":
		return decodeInto(obj, &c.pvcs)
	case "PersistentVolume":
		return decodeInto(obj, &c.pvs)
	}
	return nil
}

func decodeInto[T any](obj manifest.Object, into *[]*T) error {
	v := new(T)
	if err := obj.Decode(v); err != nil {
		return err
	}
	*into = append(*into, v)
	return nil
}

// objectErr names the object an error is about, unless the error (from manifest.Object.Decode)
// already does.
func objectErr(obj manifest.Object, err error) error {
	var de *manifest.DocumentError
	if errors.As(err, &de) {
		return err
	}
	return fmt.Errorf("%s %s %q: %w", obj.Position, obj.Kind.Kind, obj.Name, err)
}

func (c *clusterObjects) addPod(pod *corev1.Pod) {
	if pod.Namespace == "" {
		pod.Namespace = metav1.NamespaceDefault
	}
	if pod.Spec.NodeName != "" {
		c.bound[pod.Spec.NodeName] = append(c.bound[pod.Spec.NodeName], pod)
		return
	}
	c.pending = append(c.pending, pod)
}

// workload reads a Deployment, ReplicaSet, StatefulSet (replicas, default 1) or Job (parallelism,
// default 1).
func workload(obj manifest.Object) (metav1.ObjectMeta, int, corev1.PodTemplateSpec, error) {
	var meta metav1.ObjectMeta
	var replicas *int32
	var template corev1.PodTemplateSpec
	field := "spec.replicas"
	var err error
	switch obj.Kind.Kind {
	case "Job":
		var w batchv1.Job
		err = obj.Decode(&w)
		meta, replicas, template, field = w.ObjectMeta, w.Spec.Parallelism, w.Spec.Template, "spec.parallelism"
	case "Deployment":
		var w appsv1.Deployment
		err = obj.Decode(&w)
		meta, replicas, template = w.ObjectMeta, w.Spec.Replicas, w.Spec.Template
	case "StatefulSet":
		var w appsv1.StatefulSet
		err = obj.Decode(&w)
		meta, replicas, template = w.ObjectMeta, w.Spec.Replicas, w.Spec.Template
	default:
		var w appsv1.ReplicaSet
		err = obj.Decode(&w)
		meta, replicas, template = w.ObjectMeta, w.Spec.Replicas, w.Spec.Template
	}
	if err != nil {
		return meta, 0, template, err
	}
	n := 1
	if replicas != nil {
		n = int(*replicas)
	}
	if n < 0 {
		return meta, 0, template, fmt.Errorf("%s: must not be negative, got %d", field, n)
	}
	return meta, n, template, nil
}

// podFromTemplate makes replica i of a workload: named <workload>-<i> in the workload's namespace.
func podFromTemplate(owner metav1.ObjectMeta, template corev1.PodTemplateSpec, i int) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: *template.ObjectMeta.DeepCopy(), Spec: *template.Spec.DeepCopy()}
	pod.Name = fmt.Sprintf("%s-%d", owner.Name, i)
	pod.Namespace = owner.Namespace
	return pod
}
