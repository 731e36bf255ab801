package kubeletconfig

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// formatQuantity renders q for a kubelet flag or config file. Memory and storage are written in Mi
// (2048Mi, not Quantity's canonical 2Gi) so that a reader can compare flags with the catalogue's
// allocatable to the byte; a value that is not a whole MiB falls back to Ki, then to plain bytes, so
// nothing is ever rounded. CPU is written in millicores (100m) or whole cores (2).
func formatQuantity(name corev1.ResourceName, q resource.Quantity) string {
	switch name {
	case corev1.ResourceCPU:
		return formatMilli(q)
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		return formatBytes(q)
	default:
		// Counts such as pid read best as plain integers (1000, not Quantity's 1k).
		if n, ok := q.AsInt64(); ok {
			return strconv.FormatInt(n, 10)
		}
		return q.String()
	}
}

func formatMilli(q resource.Quantity) string {
	m := q.MilliValue()
	if m%1000 == 0 {
		return strconv.FormatInt(m/1000, 10)
	}
	return strconv.FormatInt(m, 10) + "m"
}

func formatBytes(q resource.Quantity) string {
	b, ok := q.AsInt64()
	switch {
	case !ok:
		return q.String()
	case b == 0:
		return "0"
	case b%mib == 0:
		return strconv.FormatInt(b/mib, 10) + "Mi"
	case b%kib == 0:
		return strconv.FormatInt(b/kib, 10) + "Ki"
	default:
		return strconv.FormatInt(b, 10)
	}
}
