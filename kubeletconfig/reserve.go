package kubeletconfig

import (
	"math"

	corev1 "k8s.io/api/core/v1"
)

// Input bounds: far beyond any Azure SKU, and low enough that byte counts cannot overflow int64.
const (
	maxVCPUs     = 1 << 20
	maxMemoryMiB = 1 << 30
)

// ReservationInput describes one VM size for Reserve.
type ReservationInput struct {
	// VCPUs is the SKU's vCPU count.
	VCPUs int64
	// MemoryMiB is the SKU's nominal memory in MiB (MemoryGB × 1024; may be fractional, e.g. 3.5 GiB is
	// 3584). It is nominal on purpose: both policies are defined on the advertised size, not on what
	// the hypervisor leaves after its own overhead.
	MemoryMiB float64
	// MaxPods is the node's pod limit (see MaxPods); the default policy reserves memory per pod.
	MaxPods int32
	// Policy selects the memory policy; "" means PolicyMaxPods.
	Policy Policy
}

// Reserve computes the node's reservation. It is the only place these numbers are computed: the
// catalogue subtracts Total() from capacity to get allocatable, and Build writes the same values into
// --kube-reserved, --system-reserved and --eviction-hard, so what the scheduler plans with is what
// the kubelet enforces.
//
// Errors are *api.FieldError of class ErrInvalid and name the offending field and value.
func Reserve(in ReservationInput) (Reservation, error) {
	policy, err := in.validate()
	if err != nil {
		return Reservation{}, err
	}
	memMiB, evictMiB := kubeReservedMiBMaxPods(in.MemoryMiB, in.MaxPods), evictionMiBMaxPods
	if policy == PolicyAKSBrackets {
		memMiB, evictMiB = kubeReservedMiBBrackets(in.MemoryMiB), evictionMiBBrackets
	}
	return Reservation{
		KubeReserved: corev1.ResourceList{
			corev1.ResourceCPU:    milliCPU(kubeReservedMilliCPU(in.VCPUs)),
			corev1.ResourceMemory: mebibytes(memMiB),
		},
		SystemReserved: corev1.ResourceList{
			corev1.ResourceCPU:    milliCPU(0),
			corev1.ResourceMemory: mebibytes(0),
		},
		EvictionThreshold: corev1.ResourceList{corev1.ResourceMemory: mebibytes(evictMiB)},
	}, nil
}

// validate checks the input and returns the resolved policy.
func (in ReservationInput) validate() (Policy, error) {
	switch {
	case in.VCPUs < 1 || in.VCPUs > maxVCPUs:
		return "", invalid("VCPUs", in.VCPUs, "must be between 1 and %d", maxVCPUs)
	case math.IsNaN(in.MemoryMiB) || in.MemoryMiB <= 0 || in.MemoryMiB > maxMemoryMiB:
		return "", invalid("MemoryMiB", in.MemoryMiB, "must be a positive number of MiB up to %d", maxMemoryMiB)
	case in.MaxPods < 1:
		return "", invalid("MaxPods", in.MaxPods, "must be at least 1")
	}
	policy, ok := in.Policy.resolve()
	if !ok {
		return "", invalid("Policy", in.Policy, "must be %q or %q", PolicyMaxPods, PolicyAKSBrackets)
	}
	return policy, nil
}
