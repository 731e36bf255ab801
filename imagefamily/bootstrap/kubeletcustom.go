package bootstrap

import (
	"math"
	"reflect"

	"github.com/napkit/napkit/kubeletconfig"
	"k8s.io/apimachinery/pkg/api/resource"
)

// CustomKubeletConfig is the kubelet block of the AKS APIs (agent pool, Machine and node
// bootstrapping), in their JSON spelling. AKS owns reservations and eviction in these modes, so only
// the settings an AKSNodeClass may change appear here.
type CustomKubeletConfig struct {
	CPUManagerPolicy      string   `json:"cpuManagerPolicy,omitempty"`
	CPUCfsQuota           *bool    `json:"cpuCfsQuota,omitempty"`
	CPUCfsQuotaPeriod     string   `json:"cpuCfsQuotaPeriod,omitempty"`
	ImageGcHighThreshold  *int32   `json:"imageGcHighThreshold,omitempty"`
	ImageGcLowThreshold   *int32   `json:"imageGcLowThreshold,omitempty"`
	TopologyManagerPolicy string   `json:"topologyManagerPolicy,omitempty"`
	AllowedUnsafeSysctls  []string `json:"allowedUnsafeSysctls,omitempty"`
	FailSwapOn            *bool    `json:"failSwapOn,omitempty"`
	ContainerLogMaxSizeMB *int32   `json:"containerLogMaxSizeMB,omitempty"`
	ContainerLogMaxFiles  *int32   `json:"containerLogMaxFiles,omitempty"`
	PodMaxPids            *int32   `json:"podMaxPids,omitempty"`
}

// KubeletConfigFor converts a validated kubeletconfig.Config into the AKS kubelet block, or nil when
// the node class sets nothing (AKS then keeps its defaults).
func KubeletConfigFor(c *kubeletconfig.Config) *CustomKubeletConfig {
	if c == nil {
		return nil
	}
	out := &CustomKubeletConfig{
		CPUManagerPolicy:      c.CPUManagerPolicy,
		CPUCfsQuota:           clone(c.CPUCFSQuota),
		ImageGcHighThreshold:  clone(c.ImageGCHighThresholdPercent),
		ImageGcLowThreshold:   clone(c.ImageGCLowThresholdPercent),
		TopologyManagerPolicy: c.TopologyManagerPolicy,
		FailSwapOn:            clone(c.FailSwapOn),
		ContainerLogMaxSizeMB: ContainerLogMaxSizeMB(c.ContainerLogMaxSize),
		ContainerLogMaxFiles:  clone(c.ContainerLogMaxFiles),
		PodMaxPids:            PodMaxPids(c.PodPidsLimit),
	}
	if c.CPUCFSQuotaPeriod != nil {
		out.CPUCfsQuotaPeriod = c.CPUCFSQuotaPeriod.String()
	}
	if len(c.AllowedUnsafeSysctls) > 0 {
		out.AllowedUnsafeSysctls = append([]string(nil), c.AllowedUnsafeSysctls...)
	}
	if reflect.ValueOf(*out).IsZero() {
		return nil
	}
	return out
}

// ContainerLogMaxSizeMB converts a kubelet size ("50Mi", "1Gi", "1048576Ki") to the whole MiB the AKS
// APIs take. It returns nil for "", an unparseable size or one under 1 MiB, which AKS cannot express;
// sizes beyond int32 are capped.
func ContainerLogMaxSizeMB(size string) *int32 {
	if size == "" {
		return nil
	}
	q, err := resource.ParseQuantity(size)
	if err != nil {
		return nil
	}
	mib := q.Value() / (1 << 20)
	if mib < 1 {
		return nil
	}
	v := int32(min(mib, math.MaxInt32))
	return &v
}

// PodMaxPids converts the kubelet's int64 pod PID limit to the AKS APIs' int32: values above
// MaxInt32 are capped, negative values mean "unlimited" (-1), nil stays nil.
func PodMaxPids(limit *int64) *int32 {
	if limit == nil {
		return nil
	}
	var v int32
	switch {
	case *limit < 0:
		v = -1
	case *limit > math.MaxInt32:
		v = math.MaxInt32
	default:
		v = int32(*limit)
	}
	return &v
}

func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
