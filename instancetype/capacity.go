package instancetype

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// DefaultVMMemoryOverheadPercent is the share of a VM's nominal memory the hypervisor and firmware keep,
// as a fraction (Karpenter's --vm-memory-overhead-percent default). A D2s_v3 advertised at 8 GiB
// reports about 7.6 GiB to the kernel.
const DefaultVMMemoryOverheadPercent = 0.075

const bytesPerGiB = 1 << 30

// nominalMemoryBytes is the advertised memory in bytes: MemoryGB × 1024 MiB, not rounded to whole GiB
// (so a 3.5 GiB size keeps its half GiB).
func nominalMemoryBytes(gib float64) int64 { return int64(gib * bytesPerGiB) }

// memoryCapacityBytes is what the node sees: nominal memory minus ceil(fraction × nominal).
func memoryCapacityBytes(gib, overheadFraction float64) int64 {
	nominal := nominalMemoryBytes(gib)
	return nominal - int64(math.Ceil(float64(nominal)*overheadFraction))
}

// capacityInput holds the per-build values capacity depends on besides the SKU.
type capacityInput struct {
	overheadFraction float64
	osDiskSizeGB     int64
	maxPods          int32
}

// computeCapacity returns the node capacity of c.
func computeCapacity(c *candidate, in capacityInput) corev1.ResourceList {
	capacity := make(corev1.ResourceList, 5)
	capacity[corev1.ResourceCPU] = *resource.NewQuantity(c.sku.VCPUs, resource.DecimalSI)
	memory := memoryCapacityBytes(c.sku.MemoryGiB, in.overheadFraction)
	capacity[corev1.ResourceMemory] = *resource.NewQuantity(memory, resource.BinarySI)
	capacity[corev1.ResourceEphemeralStorage] = *resource.NewQuantity(in.osDiskSizeGB*bytesPerGB, resource.DecimalSI)
	capacity[corev1.ResourcePods] = *resource.NewQuantity(int64(in.maxPods), resource.DecimalSI)
	if c.gpu != nil && c.sku.GPUs > 0 {
		capacity[c.gpu.Resource()] = *resource.NewQuantity(c.sku.GPUs, resource.DecimalSI)
	}
	return capacity
}
