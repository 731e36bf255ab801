package kubeletconfig

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// reservableResources are the resources the kubelet accepts in kubeReserved and systemReserved.
var reservableResources = []corev1.ResourceName{
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, "pid",
}

func (c *Config) validateReserved() []error {
	errs := validateReservedList("kubeReserved", c.KubeReserved)
	return append(errs, validateReservedList("systemReserved", c.SystemReserved)...)
}

func validateReservedList(name string, list corev1.ResourceList) []error {
	var errs []error
	for _, res := range slices.Sorted(maps.Keys(list)) {
		q, field := list[res], keyed(name, string(res))
		switch {
		case !slices.Contains(reservableResources, res):
			errs = append(errs, invalid(field, q.String(), "unknown resource; want cpu, memory, ephemeral-storage or pid"))
		case q.Sign() < 0:
			errs = append(errs, invalid(field, q.String(), "must not be negative"))
		case !exactForFlags(res, q):
			errs = append(errs, invalid(field, q.String(), "must be a whole number of millicores (cpu) or units (others)"))
		}
	}
	return errs
}

// exactForFlags reports whether q renders without rounding: the kubelet would otherwise reserve a
// different amount from the one the scheduler subtracted.
func exactForFlags(res corev1.ResourceName, q resource.Quantity) bool {
	if res == corev1.ResourceCPU {
		return q.Cmp(*resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI)) == 0
	}
	_, ok := q.AsInt64()
	return ok
}
