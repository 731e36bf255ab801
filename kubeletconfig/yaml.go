package kubeletconfig

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// KubeletConfiguration identity of the document YAML writes.
const (
	KubeletConfigAPIVersion = "kubelet.config.k8s.io/v1beta1"
	KubeletConfigKind       = "KubeletConfiguration"
)

// document is the subset of kubelet.config.k8s.io/v1beta1 KubeletConfiguration napkit sets, with
// upstream's JSON field names. It is written here rather than imported from k8s.io/kubelet to keep
// that module (and its dependencies) out of the library.
type document struct {
	APIVersion                  string            `json:"apiVersion"`
	Kind                        string            `json:"kind"`
	MaxPods                     int32             `json:"maxPods"`
	ClusterDNS                  []string          `json:"clusterDNS,omitempty"`
	ClusterDomain               string            `json:"clusterDomain,omitempty"`
	KubeReserved                map[string]string `json:"kubeReserved,omitempty"`
	SystemReserved              map[string]string `json:"systemReserved,omitempty"`
	EvictionHard                map[string]string `json:"evictionHard,omitempty"`
	EvictionSoft                map[string]string `json:"evictionSoft,omitempty"`
	EvictionSoftGracePeriod     map[string]string `json:"evictionSoftGracePeriod,omitempty"`
	EvictionMaxPodGracePeriod   *int32            `json:"evictionMaxPodGracePeriod,omitempty"`
	CPUManagerPolicy            string            `json:"cpuManagerPolicy,omitempty"`
	CPUCFSQuota                 *bool             `json:"cpuCFSQuota,omitempty"`
	CPUCFSQuotaPeriod           *metav1.Duration  `json:"cpuCFSQuotaPeriod,omitempty"`
	TopologyManagerPolicy       string            `json:"topologyManagerPolicy,omitempty"`
	ImageGCHighThresholdPercent *int32            `json:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int32            `json:"imageGCLowThresholdPercent,omitempty"`
	ContainerLogMaxSize         string            `json:"containerLogMaxSize,omitempty"`
	ContainerLogMaxFiles        *int32            `json:"containerLogMaxFiles,omitempty"`
	PodPidsLimit                *int64            `json:"podPidsLimit,omitempty"`
	AllowedUnsafeSysctls        []string          `json:"allowedUnsafeSysctls,omitempty"`
	FailSwapOn                  *bool             `json:"failSwapOn,omitempty"`
	FeatureGates                map[string]bool   `json:"featureGates,omitempty"`
}

// YAML renders c as a KubeletConfiguration document (the kubelet's --config file). Keys are sorted, so
// the output is byte-for-byte deterministic; quantities are written as in Flags (memory in Mi).
//
// YAML does not validate; call Validate (Build does) first.
func (c *Config) YAML() ([]byte, error) {
	out, err := yaml.Marshal(c.document())
	if err != nil {
		return nil, fmt.Errorf("kubeletconfig: marshal KubeletConfiguration: %w", err)
	}
	return out, nil
}

func (c *Config) document() document {
	return document{
		APIVersion:                  KubeletConfigAPIVersion,
		Kind:                        KubeletConfigKind,
		MaxPods:                     c.MaxPods,
		ClusterDNS:                  c.ClusterDNS,
		ClusterDomain:               c.ClusterDomain,
		KubeReserved:                nilIfEmpty(renderResources(c.KubeReserved)),
		SystemReserved:              nilIfEmpty(renderResources(c.SystemReserved)),
		EvictionHard:                c.EvictionHard,
		EvictionSoft:                c.EvictionSoft,
		EvictionSoftGracePeriod:     durationStrings(c.EvictionSoftGracePeriod),
		EvictionMaxPodGracePeriod:   c.EvictionMaxPodGracePeriod,
		CPUManagerPolicy:            c.CPUManagerPolicy,
		CPUCFSQuota:                 c.CPUCFSQuota,
		CPUCFSQuotaPeriod:           metaDuration(c.CPUCFSQuotaPeriod),
		TopologyManagerPolicy:       c.TopologyManagerPolicy,
		ImageGCHighThresholdPercent: c.ImageGCHighThresholdPercent,
		ImageGCLowThresholdPercent:  c.ImageGCLowThresholdPercent,
		ContainerLogMaxSize:         c.ContainerLogMaxSize,
		ContainerLogMaxFiles:        c.ContainerLogMaxFiles,
		PodPidsLimit:                c.PodPidsLimit,
		AllowedUnsafeSysctls:        c.AllowedUnsafeSysctls,
		FailSwapOn:                  c.FailSwapOn,
		FeatureGates:                c.FeatureGates(),
	}
}

func durationStrings(m map[string]time.Duration) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, d := range m {
		out[k] = d.String()
	}
	return out
}

func metaDuration(d *time.Duration) *metav1.Duration {
	if d == nil {
		return nil
	}
	return &metav1.Duration{Duration: *d}
}

func nilIfEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}
