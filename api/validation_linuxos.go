package api

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// sysctlRange is one integer sysctl with its CRD bounds (the AKS custom node configuration limits).
type sysctlRange struct {
	name   string
	get    func(*SysctlSettings) *int32
	lo, hi int32
}

var sysctlRanges = []sysctlRange{
	{"fsAioMaxNr", func(s *SysctlSettings) *int32 { return s.FsAioMaxNr }, 65536, 6553500},
	{"fsFileMax", func(s *SysctlSettings) *int32 { return s.FsFileMax }, 8192, 12000500},
	{"fsInotifyMaxUserWatches", func(s *SysctlSettings) *int32 { return s.FsInotifyMaxUserWatches }, 781250, 2097152},
	{"fsNrOpen", func(s *SysctlSettings) *int32 { return s.FsNrOpen }, 8192, 20000500},
	{"kernelThreadsMax", func(s *SysctlSettings) *int32 { return s.KernelThreadsMax }, 20, 513785},
	{"netCoreNetdevMaxBacklog", func(s *SysctlSettings) *int32 { return s.NetCoreNetdevMaxBacklog }, 1000, 3240000},
	{"netCoreOptmemMax", func(s *SysctlSettings) *int32 { return s.NetCoreOptmemMax }, 20480, 4194304},
	{"netCoreRmemDefault", func(s *SysctlSettings) *int32 { return s.NetCoreRmemDefault }, 212992, 134217728},
	{"netCoreRmemMax", func(s *SysctlSettings) *int32 { return s.NetCoreRmemMax }, 212992, 134217728},
	{"netCoreSomaxconn", func(s *SysctlSettings) *int32 { return s.NetCoreSomaxconn }, 4096, 3240000},
	{"netCoreWmemDefault", func(s *SysctlSettings) *int32 { return s.NetCoreWmemDefault }, 212992, 134217728},
	{"netCoreWmemMax", func(s *SysctlSettings) *int32 { return s.NetCoreWmemMax }, 212992, 134217728},
	{"netIPv4NeighDefaultGcThresh1", func(s *SysctlSettings) *int32 { return s.NetIPv4NeighDefaultGcThresh1 }, 128, 80000},
	{"netIPv4NeighDefaultGcThresh2", func(s *SysctlSettings) *int32 { return s.NetIPv4NeighDefaultGcThresh2 }, 512, 90000},
	{"netIPv4NeighDefaultGcThresh3", func(s *SysctlSettings) *int32 { return s.NetIPv4NeighDefaultGcThresh3 }, 1024, 100000},
	{"netIPv4TCPFinTimeout", func(s *SysctlSettings) *int32 { return s.NetIPv4TCPFinTimeout }, 5, 120},
	{"netIPv4TCPKeepaliveProbes", func(s *SysctlSettings) *int32 { return s.NetIPv4TCPKeepaliveProbes }, 1, 15},
	{"netIPv4TCPKeepaliveTime", func(s *SysctlSettings) *int32 { return s.NetIPv4TCPKeepaliveTime }, 30, 432000},
	{"netIPv4TCPMaxSynBacklog", func(s *SysctlSettings) *int32 { return s.NetIPv4TCPMaxSynBacklog }, 128, 3240000},
	{"netIPv4TCPMaxTwBuckets", func(s *SysctlSettings) *int32 { return s.NetIPv4TCPMaxTwBuckets }, 8000, 1440000},
	{"netIPv4TCPKeepaliveIntvl", func(s *SysctlSettings) *int32 { return s.NetIPv4TCPKeepaliveIntvl }, 10, 90},
	{"netNetfilterNfConntrackBuckets", func(s *SysctlSettings) *int32 { return s.NetNetfilterNfConntrackBuckets }, 65536, 524288},
	{"netNetfilterNfConntrackMax", func(s *SysctlSettings) *int32 { return s.NetNetfilterNfConntrackMax }, 131072, 2097152},
	{"vmMaxMapCount", func(s *SysctlSettings) *int32 { return s.VMMaxMapCount }, 65530, 262144},
	{"vmSwappiness", func(s *SysctlSettings) *int32 { return s.VMSwappiness }, 0, 100},
	{"vmVfsCachePressure", func(s *SysctlSettings) *int32 { return s.VMVfsCachePressure }, 0, 100},
}

var (
	thpEnabledValues = []string{"always", "madvise", "never"}
	thpDefragValues  = []string{"always", "defer", "defer+madvise", "madvise", "never"}
)

// validateLinuxOSConfig checks the custom Linux OS settings: sysctl ranges, the port range, the
// transparent huge page enums and the swap file. It takes the whole spec because a swap file depends
// on the kubelet block and Linux settings make no sense on a Windows image.
func validateLinuxOSConfig(p *field.Path, s *AKSNodeClassSpec) []*FieldError {
	c := s.LinuxOSConfig
	if c == nil {
		return nil
	}
	var errs []*FieldError
	if s.ImageFamily != nil && IsWindowsImageFamily(*s.ImageFamily) {
		errs = append(errs, invalid(p, *s.ImageFamily, "linuxOSConfig applies to Linux image families only"))
	}
	if c.TransparentHugePageEnabled != nil {
		errs = append(errs, oneOf(p.Child("transparentHugePageEnabled"), *c.TransparentHugePageEnabled, thpEnabledValues...)...)
	}
	if c.TransparentHugePageDefrag != nil {
		errs = append(errs, oneOf(p.Child("transparentHugePageDefrag"), *c.TransparentHugePageDefrag, thpDefragValues...)...)
	}
	errs = append(errs, validateSwap(p.Child("swapFileSize"), c.SwapFileSize, s.Kubelet)...)
	return append(errs, validateSysctls(p.Child("sysctls"), c.Sysctls)...)
}

func validateSysctls(p *field.Path, s *SysctlSettings) []*FieldError {
	if s == nil {
		return nil
	}
	var errs []*FieldError
	for _, r := range sysctlRanges {
		errs = append(errs, inRange(p.Child(r.name), r.get(s), r.lo, r.hi)...)
	}
	if s.NetIPv4IPLocalPortRange != nil {
		errs = append(errs, validatePortRange(p.Child("netIPv4IPLocalPortRange"), *s.NetIPv4IPLocalPortRange)...)
	}
	return errs
}

// validatePortRange checks "first last" with first in 1024-60999, last in 32768-65535, first < last.
func validatePortRange(p *field.Path, v string) []*FieldError {
	if err := checkPortRange(v); err != nil {
		return []*FieldError{invalid(p, v, "must be \"first last\": %v", err)}
	}
	return nil
}

func checkPortRange(v string) error {
	firstS, lastS, ok := strings.Cut(v, " ")
	if !ok {
		return fmt.Errorf("want two numbers separated by one space")
	}
	first, err1 := strconv.Atoi(firstS)
	last, err2 := strconv.Atoi(lastS)
	switch {
	case err1 != nil || err2 != nil || strings.ContainsAny(v, "+-"):
		return fmt.Errorf("want two numbers separated by one space")
	case first < 1024 || first > 60999:
		return fmt.Errorf("first must be between 1024 and 60999")
	case last < 32768 || last > 65535:
		return fmt.Errorf("last must be between 32768 and 65535")
	case first >= last:
		return fmt.Errorf("first must be below last")
	}
	return nil
}

// validateSwap checks the swap file size is a positive quantity and that the kubelet is told to
// tolerate swap: with failSwapOn left true the kubelet refuses to start on a node with swap.
func validateSwap(p *field.Path, size *string, k *KubeletConfiguration) []*FieldError {
	if size == nil {
		return nil
	}
	q, err := resource.ParseQuantity(*size)
	if err != nil || q.Sign() <= 0 {
		return []*FieldError{invalid(p, *size, "must be a positive size such as 1500Mi or 4Gi")}
	}
	if k == nil || k.FailSwapOn == nil || *k.FailSwapOn {
		return []*FieldError{invalid(p, *size, "a swap file needs spec.kubelet.failSwapOn: false, or the kubelet will not start")}
	}
	return nil
}
