package kubeletconfig

// Policy names a kube-reserved memory policy. Both policies reserve the same CPU; they differ in how
// much memory the kubelet and container runtime get and in the hard eviction threshold.
type Policy string

const (
	// PolicyMaxPods is the default and what the seed documents prescribe for every provisioning mode:
	// kube-reserved memory = min(20 × maxPods + 50, nominalMemoryMiB / 4) MiB, eviction
	// memory.available<100Mi. It follows the AKS node resource reservations documentation for
	// Kubernetes 1.29 and later: the kubelet's own memory grows with the pods it runs, not with the VM.
	PolicyMaxPods Policy = "MaxPods"
	// PolicyAKSBrackets is the older AKS regressive "tax bracket" on nominal memory (25% of the first
	// 4 GiB, 20% of the next 4, 10% of the next 8, 6% up to 128 GiB, 2% above) with eviction
	// memory.available<750Mi. It is what karpenter-provider-azure still ships, kept so estimates can be
	// compared against nodes built that way.
	PolicyAKSBrackets Policy = "AKSBrackets"
)

// Eviction thresholds per policy, in MiB.
const (
	evictionMiBMaxPods  int64 = 100
	evictionMiBBrackets int64 = 750
)

// resolve maps "" to the default policy and reports whether the policy is known.
func (p Policy) resolve() (Policy, bool) {
	switch p {
	case "", PolicyMaxPods:
		return PolicyMaxPods, true
	case PolicyAKSBrackets:
		return PolicyAKSBrackets, true
	default:
		return p, false
	}
}
