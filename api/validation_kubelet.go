package api

import (
	"regexp"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	cpuManagerPolicies      = []string{"none", "static"}
	topologyManagerPolicies = []string{"restricted", "best-effort", "none", "single-numa-node"}
	// containerLogMaxSizePattern is the CRD pattern: an integer and a binary or decimal unit.
	containerLogMaxSizePattern = regexp.MustCompile(`^\d+(E|P|T|G|M|K|Ei|Pi|Ti|Gi|Mi|Ki)$`)
	// unsafeSysctlPrefixes are the namespaced sysctl groups the kubelet may allow pods to set.
	unsafeSysctlPrefixes = []string{"kernel.shm", "kernel.msg", "fs.mqueue.", "net."}
)

// validateKubelet checks the kubelet block against the CRD: enums, the image GC thresholds, log
// rotation, the CFS period (1ms-1s, as the kubelet requires) and unsafe sysctls.
func validateKubelet(p *field.Path, k *KubeletConfiguration) []*FieldError {
	if k == nil {
		return nil
	}
	var errs []*FieldError
	if k.CPUManagerPolicy != nil {
		errs = append(errs, oneOf(p.Child("cpuManagerPolicy"), *k.CPUManagerPolicy, cpuManagerPolicies...)...)
	}
	if k.TopologyManagerPolicy != nil {
		errs = append(errs, oneOf(p.Child("topologyManagerPolicy"), *k.TopologyManagerPolicy, topologyManagerPolicies...)...)
	}
	errs = append(errs, validateImageGC(p, k)...)
	if k.ContainerLogMaxSize != nil {
		errs = append(errs, validateLogSize(p.Child("containerLogMaxSize"), *k.ContainerLogMaxSize)...)
	}
	errs = append(errs, atLeast(p.Child("containerLogMaxFiles"), k.ContainerLogMaxFiles, 2)...)
	errs = append(errs, atLeast(p.Child("podPidsLimit"), k.PodPidsLimit, -1)...)
	if d := k.CPUCFSQuotaPeriod; d != nil && (d.Duration < time.Millisecond || d.Duration > time.Second) {
		errs = append(errs, invalid(p.Child("cpuCFSQuotaPeriod"), d.Duration.String(), "must be between 1ms and 1s"))
	}
	return append(errs, validateUnsafeSysctls(p.Child("allowedUnsafeSysctls"), k.AllowedUnsafeSysctls)...)
}

// validateImageGC checks both thresholds are percentages and high is above low, or the kubelet would
// collect images forever.
func validateImageGC(p *field.Path, k *KubeletConfiguration) []*FieldError {
	hp, lp := p.Child("imageGCHighThresholdPercent"), p.Child("imageGCLowThresholdPercent")
	errs := inRange(hp, k.ImageGCHighThresholdPercent, 0, 100)
	errs = append(errs, inRange(lp, k.ImageGCLowThresholdPercent, 0, 100)...)
	if len(errs) > 0 {
		return errs
	}
	high, low := k.ImageGCHighThresholdPercent, k.ImageGCLowThresholdPercent
	switch {
	case high != nil && low != nil && *high <= *low:
		errs = append(errs, invalid(hp, int64(*high), "must be greater than imageGCLowThresholdPercent (%d)", *low))
	// One threshold alone runs against the other's default in the node's kubelet flags, and the
	// kubelet refuses to start unless low < high.
	case high != nil && low == nil && *high <= DefaultImageGCLowThresholdPercent:
		errs = append(errs, invalid(hp, int64(*high), "must be greater than the node's default imageGCLowThresholdPercent (%d), or set imageGCLowThresholdPercent too", DefaultImageGCLowThresholdPercent))
	case low != nil && high == nil && *low >= DefaultImageGCHighThresholdPercent:
		errs = append(errs, invalid(lp, int64(*low), "must be less than the node's default imageGCHighThresholdPercent (%d), or set imageGCHighThresholdPercent too", DefaultImageGCHighThresholdPercent))
	}
	return errs
}

// The image GC thresholds an AKS node's kubelet runs with unless the node class sets them.
const (
	DefaultImageGCHighThresholdPercent = 85
	DefaultImageGCLowThresholdPercent  = 80
)

// validateLogSize checks the CRD pattern and that the size is not zero, which would rotate the log on
// every write.
func validateLogSize(p *field.Path, size string) []*FieldError {
	if !containerLogMaxSizePattern.MatchString(size) {
		return []*FieldError{invalid(p, size, "must be an integer with a unit such as 50Mi or 1G")}
	}
	if strings.TrimLeft(size, "0") == strings.TrimLeft(size, "0123456789") {
		return []*FieldError{invalid(p, size, "must be greater than zero")}
	}
	return nil
}

// validateUnsafeSysctls accepts names or prefixes ending in "*" from the namespaced groups; anything
// else the kubelet rejects at start-up, leaving the node NotReady.
func validateUnsafeSysctls(p *field.Path, sysctls []string) []*FieldError {
	var errs []*FieldError
	for i, s := range sysctls {
		ok := s != "" && !strings.ContainsAny(s, ", \t\n")
		ok = ok && (s == "kernel.sem" || hasAnyPrefix(s, unsafeSysctlPrefixes))
		if !ok {
			errs = append(errs, invalid(p.Index(i), s, "must be a sysctl or pattern from kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, net.*"))
		}
	}
	return errs
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, prefix := range prefixes {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
