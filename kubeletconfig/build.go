package kubeletconfig

import (
	"maps"
	"slices"
	"time"

	"github.com/napkit/napkit/api"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Defaults Build applies.
const (
	// DefaultClusterDNS is the kube-dns service IP of an AKS cluster with the default service CIDR.
	DefaultClusterDNS = "10.0.0.10"
	// DefaultClusterDomain is the cluster DNS domain AKS uses.
	DefaultClusterDomain = "cluster.local"
)

// CRD defaults the AKSNodeClass applies inside a kubelet block. They only apply when the block exists,
// so a node class without one leaves the kubelet on its own (AKS base) defaults.
const (
	crdCPUManagerPolicy      = CPUManagerPolicyNone
	crdCPUCFSQuota           = true
	crdCPUCFSQuotaPeriod     = 100 * time.Millisecond
	crdTopologyManagerPolicy = TopologyManagerPolicyNone
	crdContainerLogMaxSize   = "50Mi"
	crdContainerLogMaxFiles  = int32(5)
)

// BuildInput is everything Build needs for one node.
type BuildInput struct {
	// NodeClass supplies spec.kubelet; it may be nil.
	NodeClass *api.AKSNodeClass
	// Reservation is Reserve's result for the node's size; its quantities become kubeReserved,
	// systemReserved and evictionHard[memory.available].
	Reservation Reservation
	// MaxPods is the node's pod limit, normally MaxPods(NodeClass, network) — the same number that was
	// passed to Reserve.
	MaxPods int32
	// ClusterDNS is the cluster DNS service IP; "" means DefaultClusterDNS.
	ClusterDNS string
	// ClusterDomain is the cluster DNS domain; "" means DefaultClusterDomain.
	ClusterDomain string
}

// Build assembles and validates the kubelet configuration: the node class's kubelet block (with the
// CRD defaults filled in when the block exists), the reservation and the pod limit. The result shares
// no maps or slices with the input. Errors wrap ErrInvalid and name the field.
func Build(in BuildInput) (*Config, error) {
	if len(in.Reservation.KubeReserved) == 0 {
		return nil, invalid("reservation.kubeReserved", nil, "is empty; compute the reservation with Reserve")
	}
	threshold, ok := in.Reservation.EvictionThreshold[corev1.ResourceMemory]
	if !ok {
		return nil, invalid("reservation.evictionThreshold", nil, "has no memory threshold; compute the reservation with Reserve")
	}
	c := &Config{
		MaxPods:        in.MaxPods,
		ClusterDNS:     []string{orDefault(in.ClusterDNS, DefaultClusterDNS)},
		ClusterDomain:  orDefault(in.ClusterDomain, DefaultClusterDomain),
		KubeReserved:   in.Reservation.KubeReserved.DeepCopy(),
		SystemReserved: in.Reservation.SystemReserved.DeepCopy(),
		EvictionHard:   map[string]string{SignalMemoryAvailable: formatQuantity(corev1.ResourceMemory, threshold)},
	}
	if in.NodeClass != nil && in.NodeClass.Spec.Kubelet != nil {
		c.applyKubelet(withCRDDefaults(in.NodeClass.Spec.Kubelet))
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// withCRDDefaults returns a copy of k with the CRD defaults filled in, as the API server would have
// stored it.
func withCRDDefaults(k *api.KubeletConfiguration) *api.KubeletConfiguration {
	out := *k
	out.CPUManagerPolicy = ptrOr(out.CPUManagerPolicy, crdCPUManagerPolicy)
	out.CPUCFSQuota = ptrOr(out.CPUCFSQuota, crdCPUCFSQuota)
	out.TopologyManagerPolicy = ptrOr(out.TopologyManagerPolicy, crdTopologyManagerPolicy)
	out.ContainerLogMaxSize = ptrOr(out.ContainerLogMaxSize, crdContainerLogMaxSize)
	out.ContainerLogMaxFiles = ptrOr(out.ContainerLogMaxFiles, crdContainerLogMaxFiles)
	if out.CPUCFSQuotaPeriod == nil {
		out.CPUCFSQuotaPeriod = &metav1.Duration{Duration: crdCPUCFSQuotaPeriod}
	}
	return &out
}

// applyKubelet copies the node class's kubelet settings into c; pointers are copied so the Config
// never aliases the node class.
func (c *Config) applyKubelet(k *api.KubeletConfiguration) {
	c.CPUManagerPolicy = deref(k.CPUManagerPolicy)
	c.CPUCFSQuota = clonePtr(k.CPUCFSQuota)
	if k.CPUCFSQuotaPeriod != nil {
		period := k.CPUCFSQuotaPeriod.Duration
		c.CPUCFSQuotaPeriod = &period
	}
	c.TopologyManagerPolicy = deref(k.TopologyManagerPolicy)
	c.ImageGCHighThresholdPercent = clonePtr(k.ImageGCHighThresholdPercent)
	c.ImageGCLowThresholdPercent = clonePtr(k.ImageGCLowThresholdPercent)
	c.ContainerLogMaxSize = deref(k.ContainerLogMaxSize)
	c.ContainerLogMaxFiles = clonePtr(k.ContainerLogMaxFiles)
	c.PodPidsLimit = clonePtr(k.PodPidsLimit)
	c.AllowedUnsafeSysctls = slices.Clone(k.AllowedUnsafeSysctls)
	c.FailSwapOn = clonePtr(k.FailSwapOn)
}

// Clone returns a deep copy of c.
func (c *Config) Clone() *Config {
	out := *c
	out.ClusterDNS = slices.Clone(c.ClusterDNS)
	out.KubeReserved = c.KubeReserved.DeepCopy()
	out.SystemReserved = c.SystemReserved.DeepCopy()
	out.EvictionHard = maps.Clone(c.EvictionHard)
	out.EvictionSoft = maps.Clone(c.EvictionSoft)
	out.EvictionSoftGracePeriod = maps.Clone(c.EvictionSoftGracePeriod)
	out.EvictionMaxPodGracePeriod = clonePtr(c.EvictionMaxPodGracePeriod)
	out.CPUCFSQuota = clonePtr(c.CPUCFSQuota)
	out.CPUCFSQuotaPeriod = clonePtr(c.CPUCFSQuotaPeriod)
	out.ImageGCHighThresholdPercent = clonePtr(c.ImageGCHighThresholdPercent)
	out.ImageGCLowThresholdPercent = clonePtr(c.ImageGCLowThresholdPercent)
	out.ContainerLogMaxFiles = clonePtr(c.ContainerLogMaxFiles)
	out.PodPidsLimit = clonePtr(c.PodPidsLimit)
	out.AllowedUnsafeSysctls = slices.Clone(c.AllowedUnsafeSysctls)
	out.FailSwapOn = clonePtr(c.FailSwapOn)
	return &out
}
