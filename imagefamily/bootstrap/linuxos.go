package bootstrap

import (
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/napkit/napkit/api"
)

// LinuxOSConfig is the node class's spec.linuxOSConfig as the node bootstrapping service
// (customLinuxOSConfig) and the AKS Machine API (linuxProfile.linuxOSConfig) take it: the swap file in
// whole MiB and the sysctls under their AKS names.
type LinuxOSConfig struct {
	SwapFileSizeMB             *int32        `json:"swapFileSizeMB,omitempty"`
	Sysctls                    *SysctlConfig `json:"sysctls,omitempty"`
	TransparentHugePageDefrag  string        `json:"transparentHugePageDefrag,omitempty"`
	TransparentHugePageEnabled string        `json:"transparentHugePageEnabled,omitempty"`
}

// SysctlConfig are the sysctls AKS sets on the node, under the AKS API's JSON names.
type SysctlConfig struct {
	FsAioMaxNr                     *int32  `json:"fsAioMaxNr,omitempty"`
	FsFileMax                      *int32  `json:"fsFileMax,omitempty"`
	FsInotifyMaxUserWatches        *int32  `json:"fsInotifyMaxUserWatches,omitempty"`
	FsNrOpen                       *int32  `json:"fsNrOpen,omitempty"`
	KernelThreadsMax               *int32  `json:"kernelThreadsMax,omitempty"`
	NetCoreNetdevMaxBacklog        *int32  `json:"netCoreNetdevMaxBacklog,omitempty"`
	NetCoreOptmemMax               *int32  `json:"netCoreOptmemMax,omitempty"`
	NetCoreRmemDefault             *int32  `json:"netCoreRmemDefault,omitempty"`
	NetCoreRmemMax                 *int32  `json:"netCoreRmemMax,omitempty"`
	NetCoreSomaxconn               *int32  `json:"netCoreSomaxconn,omitempty"`
	NetCoreWmemDefault             *int32  `json:"netCoreWmemDefault,omitempty"`
	NetCoreWmemMax                 *int32  `json:"netCoreWmemMax,omitempty"`
	NetIPv4IPLocalPortRange        *string `json:"netIpv4IpLocalPortRange,omitempty"`
	NetIPv4NeighDefaultGcThresh1   *int32  `json:"netIpv4NeighDefaultGcThresh1,omitempty"`
	NetIPv4NeighDefaultGcThresh2   *int32  `json:"netIpv4NeighDefaultGcThresh2,omitempty"`
	NetIPv4NeighDefaultGcThresh3   *int32  `json:"netIpv4NeighDefaultGcThresh3,omitempty"`
	NetIPv4TCPFinTimeout           *int32  `json:"netIpv4TcpFinTimeout,omitempty"`
	NetIPv4TCPKeepaliveProbes      *int32  `json:"netIpv4TcpKeepaliveProbes,omitempty"`
	NetIPv4TCPKeepaliveTime        *int32  `json:"netIpv4TcpKeepaliveTime,omitempty"`
	NetIPv4TCPMaxSynBacklog        *int32  `json:"netIpv4TcpMaxSynBacklog,omitempty"`
	NetIPv4TCPMaxTwBuckets         *int32  `json:"netIpv4TcpMaxTwBuckets,omitempty"`
	NetIPv4TCPTwReuse              *bool   `json:"netIpv4TcpTwReuse,omitempty"`
	NetIPv4TCPKeepaliveIntvl       *int32  `json:"netIpv4TcpkeepaliveIntvl,omitempty"`
	NetNetfilterNfConntrackBuckets *int32  `json:"netNetfilterNfConntrackBuckets,omitempty"`
	NetNetfilterNfConntrackMax     *int32  `json:"netNetfilterNfConntrackMax,omitempty"`
	VMMaxMapCount                  *int32  `json:"vmMaxMapCount,omitempty"`
	VMSwappiness                   *int32  `json:"vmSwappiness,omitempty"`
	VMVfsCachePressure             *int32  `json:"vmVfsCachePressure,omitempty"`
}

// LinuxOSConfigFor converts a validated spec.linuxOSConfig; nil stays nil.
func LinuxOSConfigFor(c *api.LinuxOSConfiguration) *LinuxOSConfig {
	if c == nil {
		return nil
	}
	out := &LinuxOSConfig{Sysctls: sysctlConfigFor(c.Sysctls),
		TransparentHugePageDefrag: derefString(c.TransparentHugePageDefrag), TransparentHugePageEnabled: derefString(c.TransparentHugePageEnabled)}
	if c.SwapFileSize != nil {
		if q, err := resource.ParseQuantity(*c.SwapFileSize); err == nil {
			mib := int32(min(q.Value()/(1<<20), 1<<31-1))
			out.SwapFileSizeMB = &mib
		}
	}
	return out
}

func sysctlConfigFor(s *api.SysctlSettings) *SysctlConfig {
	if s == nil {
		return nil
	}
	return &SysctlConfig{
		FsAioMaxNr: clone(s.FsAioMaxNr), FsFileMax: clone(s.FsFileMax), FsInotifyMaxUserWatches: clone(s.FsInotifyMaxUserWatches),
		FsNrOpen: clone(s.FsNrOpen), KernelThreadsMax: clone(s.KernelThreadsMax),
		NetCoreNetdevMaxBacklog: clone(s.NetCoreNetdevMaxBacklog), NetCoreOptmemMax: clone(s.NetCoreOptmemMax),
		NetCoreRmemDefault: clone(s.NetCoreRmemDefault), NetCoreRmemMax: clone(s.NetCoreRmemMax),
		NetCoreSomaxconn: clone(s.NetCoreSomaxconn), NetCoreWmemDefault: clone(s.NetCoreWmemDefault),
		NetCoreWmemMax: clone(s.NetCoreWmemMax), NetIPv4IPLocalPortRange: clone(s.NetIPv4IPLocalPortRange),
		NetIPv4NeighDefaultGcThresh1: clone(s.NetIPv4NeighDefaultGcThresh1), NetIPv4NeighDefaultGcThresh2: clone(s.NetIPv4NeighDefaultGcThresh2),
		NetIPv4NeighDefaultGcThresh3: clone(s.NetIPv4NeighDefaultGcThresh3), NetIPv4TCPFinTimeout: clone(s.NetIPv4TCPFinTimeout),
		NetIPv4TCPKeepaliveProbes: clone(s.NetIPv4TCPKeepaliveProbes), NetIPv4TCPKeepaliveTime: clone(s.NetIPv4TCPKeepaliveTime),
		NetIPv4TCPMaxSynBacklog: clone(s.NetIPv4TCPMaxSynBacklog), NetIPv4TCPMaxTwBuckets: clone(s.NetIPv4TCPMaxTwBuckets),
		NetIPv4TCPTwReuse: clone(s.NetIPv4TCPTwReuse), NetIPv4TCPKeepaliveIntvl: clone(s.NetIPv4TCPKeepaliveIntvl),
		NetNetfilterNfConntrackBuckets: clone(s.NetNetfilterNfConntrackBuckets), NetNetfilterNfConntrackMax: clone(s.NetNetfilterNfConntrackMax),
		VMMaxMapCount: clone(s.VMMaxMapCount), VMSwappiness: clone(s.VMSwappiness), VMVfsCachePressure: clone(s.VMVfsCachePressure),
	}
}

func derefString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
