package kubeletconfig

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Flags renders c as kubelet command-line flags, sorted, so the same Config always gives the same
// bootstrap script (and the same hash). Optional settings that are unset produce no flag; maxPods is
// always written. Map-valued flags are k=v (eviction thresholds k<v) joined by commas with keys sorted;
// memory is written in Mi (--kube-reserved=cpu=100m,memory=2048Mi).
//
// Flags does not validate; call Validate (Build does) first.
func (c *Config) Flags() []string {
	flags := c.scalarFlags()
	flags = append(flags, c.mapFlags()...)
	slices.Sort(flags)
	return flags
}

func (c *Config) scalarFlags() []string {
	flags := []string{renderFlag("max-pods", strconv.Itoa(int(c.MaxPods)))}
	flags = appendIf(flags, len(c.ClusterDNS) > 0, "cluster-dns", strings.Join(c.ClusterDNS, ","))
	flags = appendIf(flags, c.ClusterDomain != "", "cluster-domain", c.ClusterDomain)
	flags = appendIf(flags, c.CPUManagerPolicy != "", "cpu-manager-policy", c.CPUManagerPolicy)
	flags = appendPtr(flags, "cpu-cfs-quota", c.CPUCFSQuota, strconv.FormatBool)
	flags = appendPtr(flags, "cpu-cfs-quota-period", c.CPUCFSQuotaPeriod, time.Duration.String)
	flags = appendIf(flags, len(c.FeatureGates()) > 0, "feature-gates", joinMap(c.FeatureGates(), "=", strconv.FormatBool))
	flags = appendIf(flags, c.TopologyManagerPolicy != "", "topology-manager-policy", c.TopologyManagerPolicy)
	flags = appendPtr(flags, "image-gc-high-threshold", c.ImageGCHighThresholdPercent, itoa32)
	flags = appendPtr(flags, "image-gc-low-threshold", c.ImageGCLowThresholdPercent, itoa32)
	flags = appendIf(flags, c.ContainerLogMaxSize != "", "container-log-max-size", c.ContainerLogMaxSize)
	flags = appendPtr(flags, "container-log-max-files", c.ContainerLogMaxFiles, itoa32)
	flags = appendPtr(flags, "pod-max-pids", c.PodPidsLimit, itoa64)
	flags = appendIf(flags, len(c.AllowedUnsafeSysctls) > 0, "allowed-unsafe-sysctls", strings.Join(c.AllowedUnsafeSysctls, ","))
	flags = appendPtr(flags, "fail-swap-on", c.FailSwapOn, strconv.FormatBool)
	return appendPtr(flags, "eviction-max-pod-grace-period", c.EvictionMaxPodGracePeriod, itoa32)
}

func (c *Config) mapFlags() []string {
	var flags []string
	flags = appendIf(flags, len(c.KubeReserved) > 0, "kube-reserved", joinResources(c.KubeReserved))
	flags = appendIf(flags, len(c.SystemReserved) > 0, "system-reserved", joinResources(c.SystemReserved))
	flags = appendIf(flags, len(c.EvictionHard) > 0, "eviction-hard", joinMap(c.EvictionHard, "<", identity))
	flags = appendIf(flags, len(c.EvictionSoft) > 0, "eviction-soft", joinMap(c.EvictionSoft, "<", identity))
	return appendIf(flags, len(c.EvictionSoftGracePeriod) > 0, "eviction-soft-grace-period",
		joinMap(c.EvictionSoftGracePeriod, "=", time.Duration.String))
}

// FeatureGateCustomCPUCFSQuotaPeriod is the kubelet feature gate without which a kubelet refuses to
// start with a cpuCFSQuotaPeriod other than DefaultCPUCFSQuotaPeriod.
const FeatureGateCustomCPUCFSQuotaPeriod = "CustomCPUCFSQuotaPeriod"

// DefaultCPUCFSQuotaPeriod is the kubelet's CFS period.
const DefaultCPUCFSQuotaPeriod = 100 * time.Millisecond

// FeatureGates returns the kubelet feature gates c needs: CustomCPUCFSQuotaPeriod when the CFS period
// is not the default (the kubelet rejects such a period without it). Nil when none is needed.
func (c *Config) FeatureGates() map[string]bool {
	if c.CPUCFSQuotaPeriod == nil || *c.CPUCFSQuotaPeriod == DefaultCPUCFSQuotaPeriod {
		return nil
	}
	return map[string]bool{FeatureGateCustomCPUCFSQuotaPeriod: true}
}

func renderFlag(name, value string) string { return "--" + name + "=" + value }

func appendIf(flags []string, ok bool, name, value string) []string {
	if !ok {
		return flags
	}
	return append(flags, renderFlag(name, value))
}

func appendPtr[T any](flags []string, name string, p *T, format func(T) string) []string {
	if p == nil {
		return flags
	}
	return append(flags, renderFlag(name, format(*p)))
}

// joinMap renders k<sep>v pairs sorted by key and joined by commas.
func joinMap[V any](m map[string]V, sep string, format func(V) string) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+sep+format(m[k]))
	}
	return strings.Join(parts, ",")
}

// joinResources renders a resource list with formatQuantity, so memory stays in Mi.
func joinResources(list corev1.ResourceList) string {
	return joinMap(renderResources(list), "=", identity)
}

// renderResources converts a resource list to the string map the kubelet reads.
func renderResources(list corev1.ResourceList) map[string]string {
	out := make(map[string]string, len(list))
	for name, q := range list {
		out[string(name)] = formatQuantity(name, q)
	}
	return out
}

func identity(s string) string { return s }
func itoa32(n int32) string    { return strconv.FormatInt(int64(n), 10) }
func itoa64(n int64) string    { return strconv.FormatInt(n, 10) }
