package kubeletconfig

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Byte multiples used to build and render memory quantities.
const (
	kib int64 = 1 << 10
	mib int64 = 1 << 20
)

// Reservation is what a node keeps back from pods. Allocatable is capacity minus Total(); the same
// quantities are written into the kubelet flags, which is why they are exact resource.Quantity values
// (whole millicores and whole MiB) rather than rounded floats.
type Reservation struct {
	// KubeReserved is held for the kubelet and container runtime (cpu, memory).
	KubeReserved corev1.ResourceList
	// SystemReserved is held for the OS daemons; AKS reserves nothing here (cpu 0, memory 0).
	SystemReserved corev1.ResourceList
	// EvictionThreshold holds memory: the hard memory.available threshold below which the kubelet
	// evicts pods. The scheduler must not plan to use it, so it counts against allocatable.
	EvictionThreshold corev1.ResourceList
}

// Total returns KubeReserved + SystemReserved + EvictionThreshold per resource, as a new list; the
// receiver's quantities are not modified.
func (r Reservation) Total() corev1.ResourceList {
	total := corev1.ResourceList{}
	for _, list := range []corev1.ResourceList{r.KubeReserved, r.SystemReserved, r.EvictionThreshold} {
		for name, q := range list {
			sum := total[name].DeepCopy()
			sum.Add(q)
			total[name] = sum
		}
	}
	return total
}

// milliCPU is a cpu quantity in the decimal form kubelet flags use (100m, 2).
func milliCPU(m int64) resource.Quantity { return *resource.NewMilliQuantity(m, resource.DecimalSI) }

// mebibytes is a memory quantity of n MiB, in binary form.
func mebibytes(n int64) resource.Quantity { return *resource.NewQuantity(n*mib, resource.BinarySI) }
