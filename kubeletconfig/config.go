package kubeletconfig

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Config is the typed kubelet configuration napkit generates for a node: the settings an AKSNodeClass
// may change, the reservation and the pod limit. Pointer fields are optional (nil = the kubelet's own
// default, and no flag is written); everything else is always written.
//
// Config is a plain value: Flags and YAML read it, and nothing caches into it.
type Config struct {
	MaxPods       int32
	ClusterDNS    []string
	ClusterDomain string

	// KubeReserved and SystemReserved hold cpu, memory, ephemeral-storage or pid quantities.
	KubeReserved   corev1.ResourceList
	SystemReserved corev1.ResourceList
	// EvictionHard and EvictionSoft map a signal (memory.available, nodefs.available, ...) to a
	// threshold: a quantity such as 100Mi or a percentage such as 10%.
	EvictionHard map[string]string
	EvictionSoft map[string]string
	// EvictionSoftGracePeriod is how long each soft threshold must hold before pods are evicted.
	EvictionSoftGracePeriod map[string]time.Duration
	// EvictionMaxPodGracePeriod caps pod termination grace (seconds) on soft eviction.
	EvictionMaxPodGracePeriod *int32

	CPUManagerPolicy string
	CPUCFSQuota      *bool
	// CPUCFSQuotaPeriod other than 100ms needs the kubelet's CustomCPUCFSQuotaPeriod feature gate;
	// Flags renders the gate with it (see FeatureGates).
	CPUCFSQuotaPeriod     *time.Duration
	TopologyManagerPolicy string

	ImageGCHighThresholdPercent *int32
	ImageGCLowThresholdPercent  *int32
	ContainerLogMaxSize         string
	ContainerLogMaxFiles        *int32
	PodPidsLimit                *int64
	AllowedUnsafeSysctls        []string
	FailSwapOn                  *bool
}

// Policy values the kubelet accepts.
const (
	CPUManagerPolicyNone   = "none"
	CPUManagerPolicyStatic = "static"

	TopologyManagerPolicyNone           = "none"
	TopologyManagerPolicyBestEffort     = "best-effort"
	TopologyManagerPolicyRestricted     = "restricted"
	TopologyManagerPolicySingleNUMANode = "single-numa-node"
)

// SignalMemoryAvailable is the eviction signal the reservation's threshold applies to.
const SignalMemoryAvailable = "memory.available"
