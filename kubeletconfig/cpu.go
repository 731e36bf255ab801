package kubeletconfig

// cpuBracket is one step of the regressive CPU reservation: each core up to uptoCores is taxed
// milliPerCore millicores. Integer millicores keep the sum exact (1% of a core is 10m).
type cpuBracket struct {
	uptoCores    int64
	milliPerCore int64
}

// cpuBrackets: 6% of the first core, 4% of the second, 2% of cores 3-4, 1% of every core above 4.
// Both memory policies share it; the AKS change that introduced the maxPods memory policy left CPU
// reservations alone.
var cpuBrackets = [...]cpuBracket{{1, 60}, {2, 40}, {4, 20}, {1 << 62, 10}}

// kubeReservedMilliCPU returns the kube-reserved CPU for a VM with vcpus cores, in millicores.
func kubeReservedMilliCPU(vcpus int64) int64 {
	var milli, below int64
	for _, b := range cpuBrackets {
		if vcpus <= below {
			break
		}
		milli += (min(vcpus, b.uptoCores) - below) * b.milliPerCore
		below = b.uptoCores
	}
	return milli
}
