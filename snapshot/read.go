package snapshot

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/napkit/napkit/manifest"
	"github.com/napkit/napkit/provisioner"
)

// ReadOptions configure Read.
type ReadOptions struct {
	// MaxPods bounds the pods workloads expand to, in all; 0 means DefaultMaxPods.
	MaxPods int64
	// Owned hands the set over to Read: Read then returns the objects the set decoded when it was
	// read (manifest.Object.Typed) instead of deep copies, which for 10,000 pods saves about 30 ms.
	// The set's objects are then the returned ones, which Read may change (a pod without a namespace
	// gets "default"), so the caller must not read the set's Objects afterwards.
	Owned bool
}

// Read turns a decoded manifest set into Objects: its NodeClaims and AKSNodeClasses, pools (the
// caller pairs each NodePool with its catalogue), and the kept objects it knows: Pods, Deployments,
// ReplicaSets, StatefulSets and Jobs (expanded to their pods, within opts.MaxPods, before any pod is
// made), DaemonSets, Nodes, PersistentVolumeClaims, PersistentVolumes, PodDisruptionBudgets and
// Namespaces. Other kinds are skipped. A pod or PodDisruptionBudget without a namespace is in
// "default". Objects are decoded strictly (manifest.Object.Decode); errors name the object's
// position, kind and name, the field and the value.
func Read(set *manifest.Set, pools []provisioner.NodePoolInput, opts ReadOptions) (Objects, error) {
	out := Objects{NodeClaims: set.NodeClaims, NodeClasses: set.NodeClasses, NodePools: pools}
	budget := &Budget{Max: opts.MaxPods}
	pods := make([]*corev1.Pod, 0, len(set.Objects)) // the Pod objects' pods, in order
	var workloads []pendingWorkload
	for _, obj := range set.Objects {
		pod, w, err := out.add(obj, budget, opts.Owned)
		if err != nil {
			return Objects{}, objectErr(obj, err)
		}
		if w != nil {
			workloads = append(workloads, pendingWorkload{at: len(pods), w: *w})
		}
		if pod != nil {
			pods = append(pods, pod)
		}
	}
	out.Pods = withWorkloadPods(pods, workloads)
	for _, pod := range out.Pods {
		if pod.Namespace == "" {
			pod.Namespace = metav1.NamespaceDefault
		}
	}
	if len(out.Pods) == 0 {
		out.Pods = nil
	}
	return out, nil
}

// pendingWorkload is a workload read and counted, whose pods go before the Pod object at
// index at of the Pod objects' pods (so that every pod keeps its place in the manifests).
type pendingWorkload struct {
	at int
	w  Workload
}

// withWorkloadPods makes every workload's pods, once all of them fit the budget, and places them
// among the Pod objects' pods where the workload was; with no workload, pods are returned as they
// are (10,000 Pod objects are one list, not 10,000 lists copied into one).
func withWorkloadPods(pods []*corev1.Pod, workloads []pendingWorkload) []*corev1.Pod {
	if len(workloads) == 0 {
		return pods
	}
	made := make([][]*corev1.Pod, len(workloads))
	total := len(pods)
	for i, pw := range workloads {
		made[i] = pw.w.Pods()
		total += len(made[i])
	}
	out := make([]*corev1.Pod, 0, total)
	next := 0
	for i, pw := range workloads {
		out = append(append(out, pods[next:pw.at]...), made[i]...)
		next = pw.at
	}
	return append(out, pods[next:]...)
}

// add decodes one object into o; a Pod is returned, a workload is counted against budget and
// returned for later expansion.
func (o *Objects) add(obj manifest.Object, budget *Budget, owned bool) (*corev1.Pod, *Workload, error) {
	switch obj.Kind.Kind {
	case "Pod":
		pod, err := decode[corev1.Pod](obj, owned)
		if err != nil {
			return nil, nil, err
		}
		return pod, nil, nil
	case "Deployment", "ReplicaSet", "StatefulSet", "Job":
		w, err := readWorkload(obj)
		if err != nil {
			return nil, nil, err
		}
		if err := budget.Spend(w); err != nil {
			return nil, nil, err
		}
		return nil, &w, nil
	case "DaemonSet":
		return nil, nil, decodeInto(obj, &o.DaemonSets)
	case "Node":
		return nil, nil, decodeInto(obj, &o.Nodes)
	case "PersistentVolumeClaim":
		return nil, nil, decodeInto(obj, &o.PersistentVolumeClaims)
	case "PersistentVolume":
		return nil, nil, decodeInto(obj, &o.PersistentVolumes)
	case "Namespace":
		return nil, nil, decodeInto(obj, &o.Namespaces)
	case "PodDisruptionBudget":
		if err := decodeInto(obj, &o.PodDisruptionBudgets); err != nil {
			return nil, nil, err
		}
		if pdb := o.PodDisruptionBudgets[len(o.PodDisruptionBudgets)-1]; pdb.Namespace == "" {
			pdb.Namespace = metav1.NamespaceDefault
		}
	}
	return nil, nil, nil
}

// readWorkload decodes a workload kind and reads its count.
func readWorkload(obj manifest.Object) (Workload, error) {
	var typed runtime.Object
	switch obj.Kind.Kind {
	case "Deployment":
		typed = &appsv1.Deployment{}
	case "ReplicaSet":
		typed = &appsv1.ReplicaSet{}
	case "StatefulSet":
		typed = &appsv1.StatefulSet{}
	default:
		typed = &batchv1.Job{}
	}
	if err := obj.Decode(typed); err != nil {
		return Workload{}, err
	}
	return WorkloadOf(typed)
}

// objectErr names the object an error is about, unless the error (from manifest.Object.Decode,
// which is strict) already does.
func objectErr(obj manifest.Object, err error) error {
	var de *manifest.DocumentError
	if errors.As(err, &de) {
		return err
	}
	return fmt.Errorf("%s %s %q: %w", obj.Position, obj.Kind.Kind, obj.Name, err)
}

func decodeInto[T any](obj manifest.Object, into *[]*T) error {
	v, err := decode[T](obj, false)
	if err != nil {
		return err
	}
	*into = append(*into, v)
	return nil
}

// decode reads obj into a new *T: the set's own value when the caller handed the set over (see
// ReadOptions.Owned), else a copy.
func decode[T any](obj manifest.Object, owned bool) (*T, error) {
	if owned {
		if v, ok := any(obj.Typed()).(*T); ok {
			return v, nil
		}
	}
	v := new(T)
	if err := obj.Decode(v); err != nil {
		return nil, err
	}
	return v, nil
}
