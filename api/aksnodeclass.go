package api

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AKSNodeClass is karpenter.azure.com/v1beta1 AKSNodeClass: how nodes are built on Azure (image, disk,
// kubelet settings, network, security).
type AKSNodeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              AKSNodeClassSpec   `json:"spec,omitempty"`
	Status            AKSNodeClassStatus `json:"status,omitempty"`
}

// Image families an AKSNodeClass may ask for. Windows families are napkit's, for the AKS Machine API
// provisioning modes only.
const (
	ImageFamilyUbuntu      = "Ubuntu"
	ImageFamilyUbuntu2204  = "Ubuntu2204"
	ImageFamilyUbuntu2404  = "Ubuntu2404"
	ImageFamilyAzureLinux  = "AzureLinux"
	ImageFamilyWindows2022 = "Windows2022"
	ImageFamilyWindows2025 = "Windows2025"
)

// FIPSMode switches FIPS-compliant node images on or off.
type FIPSMode string

// The FIPS modes.
const (
	FIPSModeFIPS     FIPSMode = "FIPS"
	FIPSModeDisabled FIPSMode = "Disabled"
)

// AKSNodeClassSpec is the desired configuration of the nodes.
type AKSNodeClassSpec struct {
	VNETSubnetID      *string               `json:"vnetSubnetID,omitempty"`
	OSDiskSizeGB      *int32                `json:"osDiskSizeGB,omitempty"`
	ImageFamily       *string               `json:"imageFamily,omitempty"`
	FIPSMode          *FIPSMode             `json:"fipsMode,omitempty"`
	Tags              map[string]string     `json:"tags,omitempty"`
	Kubelet           *KubeletConfiguration `json:"kubelet,omitempty"`
	MaxPods           *int32                `json:"maxPods,omitempty"`
	Security          *Security             `json:"security,omitempty"`
	LocalDNS          *LocalDNS             `json:"localDNS,omitempty"`
	ArtifactStreaming *ArtifactStreaming    `json:"artifactStreaming,omitempty"`
	LinuxOSConfig     *LinuxOSConfiguration `json:"linuxOSConfig,omitempty"`
	GPU               *GPU                  `json:"gpu,omitempty"`
}

// Security groups the node security settings.
type Security struct {
	EncryptionAtHost *bool `json:"encryptionAtHost,omitempty"`
	// SecureBoot and VTPM together make a trusted-launch VM, which needs a Gen2 image and SKU.
	SecureBoot *bool `json:"secureBoot,omitempty"`
	VTPM       *bool `json:"vTPM,omitempty"`
}

// ArtifactStreaming configures on-demand container image streaming (amd64 only).
type ArtifactStreaming struct {
	Enabled *bool `json:"enabled,omitempty"`
}

// GPUMode says who installs GPU drivers.
type GPUMode string

// The GPU modes.
const (
	GPUModeDriver GPUMode = "Driver"
	GPUModeNone   GPUMode = "None"
)

// GPU configures GPU nodes.
type GPU struct {
	Mode *GPUMode `json:"mode,omitempty"`
}

// LocalDNSMode says whether the per-node local DNS runs.
type LocalDNSMode string

// The LocalDNS modes.
const (
	LocalDNSModePreferred LocalDNSMode = "Preferred"
	LocalDNSModeRequired  LocalDNSMode = "Required"
	LocalDNSModeDisabled  LocalDNSMode = "Disabled"
)

// LocalDNS configures the per-node local DNS and its overrides.
type LocalDNS struct {
	Mode             LocalDNSMode           `json:"mode,omitempty"`
	VnetDNSOverrides []LocalDNSZoneOverride `json:"vnetDNSOverrides,omitempty"`
	KubeDNSOverrides []LocalDNSZoneOverride `json:"kubeDNSOverrides,omitempty"`
}

// LocalDNSZoneOverride configures how one DNS zone is served.
type LocalDNSZoneOverride struct {
	Zone               string           `json:"zone,omitempty"`
	QueryLogging       string           `json:"queryLogging,omitempty"`
	Protocol           string           `json:"protocol,omitempty"`
	ForwardDestination string           `json:"forwardDestination,omitempty"`
	ForwardPolicy      string           `json:"forwardPolicy,omitempty"`
	MaxConcurrent      *int32           `json:"maxConcurrent,omitempty"`
	CacheDuration      NillableDuration `json:"cacheDuration"`
	ServeStaleDuration NillableDuration `json:"serveStaleDuration"`
	ServeStale         string           `json:"serveStale,omitempty"`
}

// KubeletConfiguration is the subset of kubelet settings an AKSNodeClass may set.
type KubeletConfiguration struct {
	CPUManagerPolicy            *string          `json:"cpuManagerPolicy,omitempty"`
	CPUCFSQuota                 *bool            `json:"cpuCFSQuota,omitempty"`
	CPUCFSQuotaPeriod           *metav1.Duration `json:"cpuCFSQuotaPeriod,omitempty"`
	ImageGCHighThresholdPercent *int32           `json:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int32           `json:"imageGCLowThresholdPercent,omitempty"`
	TopologyManagerPolicy       *string          `json:"topologyManagerPolicy,omitempty"`
	AllowedUnsafeSysctls        []string         `json:"allowedUnsafeSysctls,omitempty"`
	ContainerLogMaxSize         *string          `json:"containerLogMaxSize,omitempty"`
	ContainerLogMaxFiles        *int32           `json:"containerLogMaxFiles,omitempty"`
	PodPidsLimit                *int64           `json:"podPidsLimit,omitempty"`
	FailSwapOn                  *bool            `json:"failSwapOn,omitempty"`
}

// LinuxOSConfiguration holds the AKS custom Linux OS settings.
type LinuxOSConfiguration struct {
	SwapFileSize               *string         `json:"swapFileSize,omitempty"`
	Sysctls                    *SysctlSettings `json:"sysctls,omitempty"`
	TransparentHugePageDefrag  *string         `json:"transparentHugePageDefrag,omitempty"`
	TransparentHugePageEnabled *string         `json:"transparentHugePageEnabled,omitempty"`
}

// SysctlSettings are the AKS custom sysctl values, each with its CRD range.
type SysctlSettings struct {
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
	NetIPv4IPLocalPortRange        *string `json:"netIPv4IPLocalPortRange,omitempty"`
	NetIPv4NeighDefaultGcThresh1   *int32  `json:"netIPv4NeighDefaultGcThresh1,omitempty"`
	NetIPv4NeighDefaultGcThresh2   *int32  `json:"netIPv4NeighDefaultGcThresh2,omitempty"`
	NetIPv4NeighDefaultGcThresh3   *int32  `json:"netIPv4NeighDefaultGcThresh3,omitempty"`
	NetIPv4TCPFinTimeout           *int32  `json:"netIPv4TCPFinTimeout,omitempty"`
	NetIPv4TCPKeepaliveProbes      *int32  `json:"netIPv4TCPKeepaliveProbes,omitempty"`
	NetIPv4TCPKeepaliveTime        *int32  `json:"netIPv4TCPKeepaliveTime,omitempty"`
	NetIPv4TCPMaxSynBacklog        *int32  `json:"netIPv4TCPMaxSynBacklog,omitempty"`
	NetIPv4TCPMaxTwBuckets         *int32  `json:"netIPv4TCPMaxTwBuckets,omitempty"`
	NetIPv4TCPTwReuse              *bool   `json:"netIPv4TCPTwReuse,omitempty"`
	NetIPv4TCPKeepaliveIntvl       *int32  `json:"netIPv4TCPKeepaliveIntvl,omitempty"`
	NetNetfilterNfConntrackBuckets *int32  `json:"netNetfilterNfConntrackBuckets,omitempty"`
	NetNetfilterNfConntrackMax     *int32  `json:"netNetfilterNfConntrackMax,omitempty"`
	VMMaxMapCount                  *int32  `json:"vmMaxMapCount,omitempty"`
	VMSwappiness                   *int32  `json:"vmSwappiness,omitempty"`
	VMVfsCachePressure             *int32  `json:"vmVfsCachePressure,omitempty"`
}

// AKSNodeClassStatus is the resolved state: node images in priority order, and readiness.
type AKSNodeClassStatus struct {
	Images            []NodeImage `json:"images,omitempty"`
	KubernetesVersion string      `json:"kubernetesVersion,omitempty"`
	// LocalDNSState is the resolved LocalDNS decision (LocalDNSStateEnabled or LocalDNSStateDisabled)
	// for spec.localDNS.mode Preferred; see AKSNodeClass.LocalDNSEnabled.
	LocalDNSState string             `json:"localDNSState,omitempty"`
	Conditions    []metav1.Condition `json:"conditions,omitempty"`
}

// NodeImage is one resolved image and the requirements (arch, Hyper-V generation) it serves.
type NodeImage struct {
	ID           string                                 `json:"id"`
	Requirements []NodeSelectorRequirementWithMinValues `json:"requirements"`
}
