package api

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// API groups and versions napkit reads.
const (
	KarpenterGroup   = "karpenter.sh"
	KarpenterVersion = "karpenter.sh/v1"
	AzureGroup       = "karpenter.azure.com"
	AzureVersion     = "karpenter.azure.com/v1beta1"

	KindNodePool     = "NodePool"
	KindNodeClaim    = "NodeClaim"
	KindAKSNodeClass = "AKSNodeClass"
)

// Karpenter's labels, annotations, taints and finalizer (karpenter.sh domain).
const (
	LabelNodePool          = "karpenter.sh/nodepool"
	LabelCapacityType      = "karpenter.sh/capacity-type"
	LabelNodeRegistered    = "karpenter.sh/registered"
	LabelNodeInitialized   = "karpenter.sh/initialized"
	LabelDoNotSyncTaints   = "karpenter.sh/do-not-sync-taints"
	AnnotationDoNotDisrupt = "karpenter.sh/do-not-disrupt"
	AnnotationNodePoolHash = "karpenter.sh/nodepool-hash"
	TerminationFinalizer   = "karpenter.sh/termination"
	TaintKeyDisrupted      = "karpenter.sh/disrupted"
	TaintKeyUnregistered   = "karpenter.sh/unregistered"

	CapacityTypeSpot     = "spot"
	CapacityTypeOnDemand = "on-demand"
	CapacityTypeReserved = "reserved"
)

// Kubernetes well-known node labels, and their deprecated beta aliases.
const (
	LabelHostname     = corev1.LabelHostname
	LabelZone         = corev1.LabelTopologyZone
	LabelRegion       = corev1.LabelTopologyRegion
	LabelInstanceType = corev1.LabelInstanceTypeStable
	LabelArch         = corev1.LabelArchStable
	LabelOS           = corev1.LabelOSStable
	LabelWindowsBuild = corev1.LabelWindowsBuild

	ArchAMD64 = "amd64"
	ArchARM64 = "arm64"
	OSLinux   = "linux"
	OSWindows = "windows"
)

// Azure provider labels (karpenter.azure.com domain).
const (
	LabelSKUName                  = "karpenter.azure.com/sku-name"
	LabelSKUFamily                = "karpenter.azure.com/sku-family"
	LabelSKUSeries                = "karpenter.azure.com/sku-series"
	LabelSKUVersion               = "karpenter.azure.com/sku-version"
	LabelSKUCPU                   = "karpenter.azure.com/sku-cpu"
	LabelSKUMemory                = "karpenter.azure.com/sku-memory"
	LabelSKUAcceleratedNetworking = "karpenter.azure.com/sku-networking-accelerated"
	LabelSKUPremiumStorage        = "karpenter.azure.com/sku-storage-premium-capable"
	LabelSKUUltraSSD              = "karpenter.azure.com/sku-storage-ultra-ssd"
	LabelSKUEphemeralOSMaxSize    = "karpenter.azure.com/sku-storage-ephemeralos-maxsize"
	LabelSKUGPUName               = "karpenter.azure.com/sku-gpu-name"
	LabelSKUGPUManufacturer       = "karpenter.azure.com/sku-gpu-manufacturer"
	LabelSKUGPUCount              = "karpenter.azure.com/sku-gpu-count"
	LabelSKUHyperVGeneration      = "karpenter.azure.com/sku-hyperv-generation"
	LabelPlacementScope           = "karpenter.azure.com/placement-scope"
	LabelAKSNodeClass             = "karpenter.azure.com/aksnodeclass"

	PlacementScopeZonal    = "zonal"
	PlacementScopeRegional = "regional"
	// RegionalZone is the zone label value of a VM placed without an availability zone.
	RegionalZone = "0"
)

// AKS labels (kubernetes.azure.com domain).
const (
	LabelAKSSKUCPU           = "kubernetes.azure.com/sku-cpu"
	LabelAKSSKUMemory        = "kubernetes.azure.com/sku-memory"
	LabelAKSMode             = "kubernetes.azure.com/mode"
	LabelAKSScaleSetPriority = "kubernetes.azure.com/scalesetpriority"
	LabelAKSPriority         = "kubernetes.azure.com/priority"
	LabelAKSOSSKU            = "kubernetes.azure.com/os-sku"
	LabelAKSFIPSEnabled      = "kubernetes.azure.com/fips_enabled"
	LabelAKSCluster          = "kubernetes.azure.com/cluster"
	LabelAKSEBPFDataplane    = "kubernetes.azure.com/ebpf-dataplane"

	PriorityRegular = "regular"
	PrioritySpot    = "spot"
)

// labelAliases maps deprecated label keys to the keys napkit uses in their place.
var labelAliases = map[string]string{
	"failure-domain.beta.kubernetes.io/zone":   LabelZone,
	"failure-domain.beta.kubernetes.io/region": LabelRegion,
	"beta.kubernetes.io/arch":                  LabelArch,
	"beta.kubernetes.io/os":                    LabelOS,
	"beta.kubernetes.io/instance-type":         LabelInstanceType,
}

// NormalizeLabelKey returns the key napkit uses for key: the stable key for a deprecated alias, the key
// itself otherwise.
func NormalizeLabelKey(key string) string {
	if stable, ok := labelAliases[key]; ok {
		return stable
	}
	return key
}

// AliasesOf returns the deprecated keys that stand for key, sorted (none for most keys).
func AliasesOf(key string) []string {
	var out []string
	for alias, stable := range labelAliases {
		if stable == key {
			out = append(out, alias)
		}
	}
	slices.Sort(out)
	return out
}

// The label tables are unexported so no caller can change them: the functions below read them, and
// WellKnownLabels returns a copy.

// wellKnownLabels are the label keys scheduling understands even when a NodePool leaves them undefined:
// a pod may select them without the NodePool naming them, because every instance type defines them.
var wellKnownLabels = sets.New(
	LabelNodePool, LabelCapacityType,
	LabelZone, LabelRegion, LabelInstanceType, LabelArch, LabelOS, LabelWindowsBuild,
	LabelSKUName, LabelSKUFamily, LabelSKUSeries, LabelSKUVersion, LabelSKUCPU, LabelSKUMemory,
	LabelSKUAcceleratedNetworking, LabelSKUPremiumStorage, LabelSKUUltraSSD, LabelSKUEphemeralOSMaxSize,
	LabelSKUGPUName, LabelSKUGPUManufacturer, LabelSKUGPUCount, LabelPlacementScope,
	LabelAKSSKUCPU, LabelAKSSKUMemory, LabelAKSMode, LabelAKSScaleSetPriority, LabelAKSPriority,
	LabelAKSOSSKU, LabelAKSFIPSEnabled, LabelAKSCluster, LabelAKSEBPFDataplane,
)

// IsWellKnownLabel reports whether scheduling understands key even when a NodePool leaves it undefined.
func IsWellKnownLabel(key string) bool { return wellKnownLabels.Has(key) }

// WellKnownLabels returns a copy of the well-known label keys (see IsWellKnownLabel), the set
// requirements.Requirements.Compatible takes as allowUndefined.
func WellKnownLabels() sets.Set[string] { return wellKnownLabels.Clone() }

// allowedAzureProviderLabels are the karpenter.azure.com keys NodePool requirements and labels may use.
var allowedAzureProviderLabels = sets.New(
	LabelAKSNodeClass, LabelSKUName, LabelSKUFamily, LabelSKUSeries, LabelSKUVersion, LabelSKUCPU,
	LabelSKUMemory, LabelSKUAcceleratedNetworking, LabelSKUPremiumStorage, LabelSKUUltraSSD,
	LabelSKUEphemeralOSMaxSize, LabelSKUGPUName, LabelSKUGPUManufacturer, LabelSKUGPUCount,
	LabelPlacementScope,
)

// allowedAKSLabels are the kubernetes.azure.com keys NodePool requirements and labels may use.
var allowedAKSLabels = sets.New(
	LabelAKSMode, LabelAKSScaleSetPriority, LabelAKSPriority, LabelAKSFIPSEnabled, LabelAKSOSSKU,
	LabelAKSCluster, LabelAKSSKUCPU, LabelAKSSKUMemory, LabelAKSEBPFDataplane,
	"kubernetes.azure.com/ebpf-host-routing", "kubernetes.azure.com/network-policy",
	"kubernetes.azure.com/hostedvm",
)

// wellKnownValues are the only values some labels can take; a requirement asking for anything else can
// never be met, so validation rejects it.
var wellKnownValues = map[string]sets.Set[string]{
	LabelCapacityType:             sets.New(CapacityTypeSpot, CapacityTypeOnDemand, CapacityTypeReserved),
	LabelArch:                     sets.New(ArchAMD64, ArchARM64),
	LabelPlacementScope:           sets.New(PlacementScopeZonal, PlacementScopeRegional),
	LabelSKUAcceleratedNetworking: sets.New("true", "false"),
	LabelSKUPremiumStorage:        sets.New("true", "false"),
	LabelSKUUltraSSD:              sets.New("true", "false"),
	LabelSKUGPUManufacturer:       sets.New("nvidia", "amd"),
	LabelAKSMode:                  sets.New("system", "user"),
	LabelAKSScaleSetPriority:      sets.New(PriorityRegular, PrioritySpot),
	LabelAKSPriority:              sets.New(PriorityRegular, PrioritySpot),
	LabelAKSOSSKU:                 sets.New("Ubuntu", "AzureLinux"),
	LabelAKSFIPSEnabled:           sets.New("true"),
}

// numericLabels hold integers, so Gt/Lt/Gte/Lte requirements on them compare numbers.
var numericLabels = sets.New(
	LabelSKUCPU, LabelSKUMemory, LabelSKUVersion, LabelSKUGPUCount, LabelSKUEphemeralOSMaxSize,
	LabelAKSSKUCPU, LabelAKSSKUMemory,
)
