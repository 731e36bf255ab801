package instancetype

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/napkit/napkit/requirements"
)

// InstanceType is one VM size as the scheduler sees it: what a node of this size offers pods
// (Capacity minus Overhead), the labels it will carry (Requirements), and where and at what price it
// can be launched (Offerings).
//
// Build shares values between instance types (requirements, offering requirement maps, the overhead
// lists of sizes with equal vCPUs and memory): treat every field as read-only, and Clone Requirements
// before narrowing them.
type InstanceType struct {
	// Name is the ARM SKU name, e.g. "Standard_D2s_v3".
	Name string
	// Requirements hold every label a node of this type gets; zone, capacity type, placement scope,
	// priority and Ultra SSD are the union over the available offerings.
	Requirements requirements.Requirements
	// Offerings are every zone × capacity type, sorted cheapest first.
	Offerings Offerings
	// Capacity is the node's capacity: cpu, memory (after the hypervisor's share), ephemeral-storage,
	// pods, and nvidia.com/gpu or amd.com/gpu on GPU sizes.
	Capacity corev1.ResourceList
	// Overhead is what the kubelet keeps back from pods.
	Overhead Overhead
	// SKU is the record the type was built from.
	SKU *SKU
	// EphemeralOSDisk is where the OS disk goes.
	EphemeralOSDisk EphemeralDisk

	allocatable corev1.ResourceList // Capacity − Overhead.Total(), computed once by Build
}

// Overhead is what a node keeps back from pods, as in Karpenter's InstanceTypeOverhead.
type Overhead struct {
	KubeReserved      corev1.ResourceList `json:"kubeReserved"`
	SystemReserved    corev1.ResourceList `json:"systemReserved"`
	EvictionThreshold corev1.ResourceList `json:"evictionThreshold"`
}

// Total returns KubeReserved + SystemReserved + EvictionThreshold per resource, as a new list.
func (o Overhead) Total() corev1.ResourceList {
	total := corev1.ResourceList{}
	for _, list := range []corev1.ResourceList{o.KubeReserved, o.SystemReserved, o.EvictionThreshold} {
		for name, q := range list {
			sum := total[name].DeepCopy()
			sum.Add(q)
			total[name] = sum
		}
	}
	return total
}

// Allocatable returns Capacity minus every Overhead, per resource of Capacity, exact to the byte and
// never negative. Types from Build return the list computed when they were built (do not modify it);
// types assembled by hand compute it on each call.
func (it *InstanceType) Allocatable() corev1.ResourceList {
	if it.allocatable != nil {
		return it.allocatable
	}
	return allocatable(it.Capacity, it.Overhead)
}

func allocatable(capacity corev1.ResourceList, o Overhead) corev1.ResourceList {
	out := make(corev1.ResourceList, len(capacity))
	for name, q := range capacity {
		left := q.DeepCopy()
		for _, list := range []corev1.ResourceList{o.KubeReserved, o.SystemReserved, o.EvictionThreshold} {
			if r, ok := list[name]; ok {
				left.Sub(r)
			}
		}
		if left.Sign() < 0 {
			left = *resource.NewQuantity(0, q.Format)
		}
		out[name] = left
	}
	return out
}
