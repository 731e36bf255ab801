package kubeletconfig

import "math"

// memBracket is one step of the AKS bracket policy: memory up to uptoMiB is taxed percent %.
type memBracket struct {
	uptoMiB float64
	percent float64
}

// memBrackets are the pre-1.29 AKS memory brackets, in MiB of nominal SKU memory.
var memBrackets = [...]memBracket{
	{4 * 1024, 25},
	{8 * 1024, 20},
	{16 * 1024, 10},
	{128 * 1024, 6},
	{math.MaxFloat64, 2},
}

// kubeReservedMiBBrackets returns the AKSBrackets kube-reserved memory in whole MiB, rounded down.
// Each bracket's share is multiplied before it is divided by 100 so that whole-GiB inputs land on the
// exact decimal value (7 GiB gives 1638.4, not 1638.3999…) before rounding down; upstream's
// int64(1024 × taxGiB) gives the same results on every tested size.
func kubeReservedMiBBrackets(memoryMiB float64) int64 {
	var tax, below float64
	for _, b := range memBrackets {
		if memoryMiB <= below {
			break
		}
		tax += (min(memoryMiB, b.uptoMiB) - below) * b.percent / 100
		below = b.uptoMiB
	}
	return int64(math.Floor(tax))
}

// kubeReservedMiBMaxPods returns the seed policy's kube-reserved memory in whole MiB:
// min(20 × maxPods + 50, memoryMiB / 4), rounded down. The memory/4 cap keeps small VMs usable when a
// high pod limit would otherwise reserve most of their memory.
func kubeReservedMiBMaxPods(memoryMiB float64, maxPods int32) int64 {
	perPods := 20*int64(maxPods) + 50
	quarter := int64(math.Floor(memoryMiB / 4))
	return min(perPods, quarter)
}
