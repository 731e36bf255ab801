package instancetype

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
)

// ExclusionKind says which rule kept a SKU out of the catalogue.
type ExclusionKind string

// Global rules, applied to every SKU whatever the node class.
const (
	ExcludedBadSKU              ExclusionKind = "BadSKU"              // the record does not read (an *api.FieldError of class ErrBadSKU)
	ExcludedDuplicate           ExclusionKind = "Duplicate"           // a second record with the same name
	ExcludedNotVirtualMachine   ExclusionKind = "NotVirtualMachine"   // resourceType is not virtualMachines
	ExcludedAKSRestricted       ExclusionKind = "AKSRestricted"       // AKS refuses the size for nodes
	ExcludedKarpenterRestricted ExclusionKind = "KarpenterRestricted" // Karpenter on Azure refuses it
	ExcludedBadSize             ExclusionKind = "BadSize"             // the size name does not parse
	ExcludedNotInRegion         ExclusionKind = "NotInRegion"         // the record is for other regions
	ExcludedLocationRestricted  ExclusionKind = "LocationRestricted"  // not available to the subscription
	ExcludedTooFewCPUs          ExclusionKind = "TooFewCPUs"          // fewer than 2 vCPUs
	ExcludedTooLittleMemory     ExclusionKind = "TooLittleMemory"     // less than 3.5 GiB
	ExcludedUnsupportedGPU      ExclusionKind = "UnsupportedGPU"      // GPUs AKS has no driver stack for
	ExcludedConstrainedCPU      ExclusionKind = "ConstrainedCPU"      // constrained-core size (M8-2ms)
	ExcludedConfidential        ExclusionKind = "Confidential"        // DC*/EC* confidential sizes
)

// Node-class rules, applied because of a setting of the AKSNodeClass.
const (
	ExcludedGPUImageFamily    ExclusionKind = "GPUImageFamily"    // no GPU driver for the image's OS
	ExcludedGPUDriver         ExclusionKind = "GPUDriver"         // gpu.mode Driver, AKS has no driver
	ExcludedEncryptionAtHost  ExclusionKind = "EncryptionAtHost"  // security.encryptionAtHost unsupported
	ExcludedTrustedLaunch     ExclusionKind = "TrustedLaunch"     // secureBoot/vTPM need Gen2, not disabled
	ExcludedArtifactStreaming ExclusionKind = "ArtifactStreaming" // artifact streaming is amd64 only
	ExcludedLocalDNS          ExclusionKind = "LocalDNS"          // LocalDNS needs 4 vCPUs and 244 MiB
)

// Excluded records a SKU left out of the catalogue and why.
type Excluded struct {
	Name   string        `json:"name"`
	Kind   ExclusionKind `json:"kind"`
	Reason string        `json:"reason"`
}

// aksRestricted are sizes AKS does not allow for nodes; karpenterRestricted are sizes Karpenter's Azure
// provider refuses as well (E64i_v3 and E64is_v3 are isolated sizes being retired).
var (
	aksRestricted = sets.New(
		"Standard_A0", "Standard_A1", "Standard_A1_v2", "Standard_B1s", "Standard_B1ms",
		"Standard_F1", "Standard_F1s", "Basic_A0", "Basic_A1", "Basic_A2", "Basic_A3", "Basic_A4",
	)
	karpenterRestricted = sets.New("Standard_E64i_v3", "Standard_E64is_v3")
)

// Minimums for a node to be useful: the kubelet, runtime and DaemonSets need room.
const (
	minVCPUs     = 2
	minMemoryGiB = 3.5
	// LocalDNS (a per-node DNS cache) needs at least 4 vCPUs and 256 MB (244 MiB).
	minLocalDNSVCPUs     = 4
	minLocalDNSMemoryMiB = 244
)

// candidate is a SKU that read cleanly, with what the rules and labels need from its name.
type candidate struct {
	sku  *SKU
	size VMSize
	gpu  *GPU // nil unless the size is in the supported-GPU list
}

// rule is one exclusion test. why is only called for SKUs that fail, so formatting costs nothing on
// the common path.
type rule struct {
	kind  ExclusionKind
	fails func(*candidate) bool
	why   func(*candidate) string
}

func fixed(reason string) func(*candidate) string { return func(*candidate) string { return reason } }

// globalRules run in order after the name and record checks in Build; the first failing rule is
// recorded.
var globalRules = []rule{
	{ExcludedNotInRegion,
		func(c *candidate) bool { return !c.sku.OfferedInRegion },
		fixed("the record does not list the region")},
	{ExcludedLocationRestricted,
		func(c *candidate) bool { return c.sku.LocationRestricted },
		fixed("a Location restriction names the region")},
	{ExcludedTooFewCPUs,
		func(c *candidate) bool { return c.sku.VCPUs < minVCPUs },
		func(c *candidate) string { return fmt.Sprintf("%d vCPUs, want at least %d", c.sku.VCPUs, minVCPUs) }},
	{ExcludedTooLittleMemory,
		func(c *candidate) bool { return c.sku.MemoryGiB < minMemoryGiB },
		func(c *candidate) string {
			return fmt.Sprintf("%g GiB, want at least %g", c.sku.MemoryGiB, minMemoryGiB)
		}},
	{ExcludedUnsupportedGPU,
		func(c *candidate) bool { return c.sku.GPUs > 0 && c.gpu == nil },
		func(c *candidate) string {
			return fmt.Sprintf("%d GPUs, and the size is not in AKS's supported-GPU list", c.sku.GPUs)
		}},
	{ExcludedConstrainedCPU,
		func(c *candidate) bool { return c.size.Constrained() },
		func(c *candidate) string {
			return fmt.Sprintf("constrained-core size: %d of %d vCPUs active", c.size.ConstrainedCPUs, c.sku.VCPUs)
		}},
	{ExcludedConfidential,
		func(c *candidate) bool {
			return strings.HasPrefix(c.sku.Size, "DC") || strings.HasPrefix(c.sku.Size, "EC")
		},
		fixed("confidential VM size (DC/EC), which needs a confidential image")},
}

// classRules returns the rules an AKSNodeClass's settings impose; they run after globalRules.
func classRules(s nodeClassSettings) []rule {
	rules := []rule{{ExcludedGPUImageFamily,
		func(c *candidate) bool { return c.gpu != nil && !c.gpu.SupportsOS(s.osFamily) },
		func(c *candidate) string {
			return fmt.Sprintf("GPU size %s has no driver for %s images", c.sku.Name, s.osSKU)
		}}}
	if s.gpuDriver {
		rules = append(rules, rule{ExcludedGPUDriver,
			func(c *candidate) bool { return c.gpu != nil && !c.gpu.ManagedDriver },
			func(c *candidate) string {
				return fmt.Sprintf("gpu.mode Driver, but AKS installs no %s GPU driver (use gpu.mode None)", c.gpu.Manufacturer)
			}})
	}
	if s.encryptionAtHost {
		rules = append(rules, rule{ExcludedEncryptionAtHost,
			func(c *candidate) bool { return !c.sku.EncryptionAtHostSupported },
			fixed("security.encryptionAtHost is true; the SKU does not support encryption at host")})
	}
	if s.trustedLaunch {
		rules = append(rules, rule{ExcludedTrustedLaunch,
			func(c *candidate) bool { return trustedLaunchReason(c) != "" },
			trustedLaunchReason})
	}
	if s.artifactStreaming {
		rules = append(rules, rule{ExcludedArtifactStreaming,
			func(c *candidate) bool { return c.sku.Arch == api.ArchARM64 },
			fixed("artifactStreaming.enabled is true; artifact streaming is amd64 only")})
	}
	if s.localDNS {
		rules = append(rules, rule{ExcludedLocalDNS,
			func(c *candidate) bool {
				return c.sku.VCPUs < minLocalDNSVCPUs || c.sku.MemoryGiB*1024 < minLocalDNSMemoryMiB
			},
			func(c *candidate) string {
				return fmt.Sprintf("LocalDNS is enabled and needs %d vCPUs and %d MiB, the SKU has %d vCPUs and %g GiB",
					minLocalDNSVCPUs, minLocalDNSMemoryMiB, c.sku.VCPUs, c.sku.MemoryGiB)
			}})
	}
	return rules
}

func trustedLaunchReason(c *candidate) string {
	switch {
	case !c.sku.HyperVGenerations.Has("2"):
		return "trusted launch (security.secureBoot or vTPM) needs a Gen2 SKU"
	case c.sku.TrustedLaunchDisabled:
		return "trusted launch (security.secureBoot or vTPM) is disabled on this SKU"
	}
	return ""
}
