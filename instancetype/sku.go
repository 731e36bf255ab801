package instancetype

import (
	"math"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
)

// SKU is one VM size as offered in one region: the record Build turns into an instance type. It holds
// no Azure SDK type: ReadSKUs fills it from ARM's Resource SKU JSON, package azuresku from the SDK's
// armcompute.ResourceSKU, and a caller with another source fills it directly (Validate says what
// Build requires). Build keeps the pointer in InstanceType.SKU, so do not change a SKU once built.
type SKU struct {
	// Name is the ARM SKU name, e.g. "Standard_D2s_v3".
	Name string `json:"name"`
	// Size is the size part of the name, e.g. "D2s_v3" (taken from the name when ARM omits it).
	Size string `json:"size"`
	// ResourceType is "virtualMachines" for VM sizes.
	ResourceType string `json:"resourceType,omitempty"`
	// Family is the ARM quota family, e.g. "standardDSv3Family": quota is granted per family.
	Family string `json:"family"`

	VCPUs int64 `json:"vCPUs"`
	// VCPUsAvailable is lower than VCPUs on constrained-core sizes such as M8-2ms.
	VCPUsAvailable int64 `json:"vCPUsAvailable"`
	// MemoryGiB is the ARM capability MemoryGB, which is really GiB.
	MemoryGiB float64 `json:"memoryGiB"`
	GPUs      int64   `json:"gpus,omitempty"`
	// Arch is the Kubernetes architecture, amd64 or arm64.
	Arch string `json:"arch"`
	// HyperVGenerations holds "1" and/or "2"; images are matched on it.
	HyperVGenerations sets.Set[string] `json:"hyperVGenerations"`

	LowPriorityCapable        bool `json:"lowPriorityCapable"`
	PremiumIO                 bool `json:"premiumIO"`
	AcceleratedNetworking     bool `json:"acceleratedNetworking"`
	EncryptionAtHostSupported bool `json:"encryptionAtHostSupported"`
	TrustedLaunchDisabled     bool `json:"trustedLaunchDisabled,omitempty"`

	EphemeralOSDiskSupported bool `json:"ephemeralOSDiskSupported"`
	// SupportedEphemeralOSDiskPlacements lists CacheDisk, ResourceDisk and/or NvmeDisk in ARM's order.
	SupportedEphemeralOSDiskPlacements []string `json:"supportedEphemeralOSDiskPlacements,omitempty"`
	CachedDiskBytes                    int64    `json:"cachedDiskBytes,omitempty"`
	// MaxResourceVolumeMB is the temp disk size; ARM says MB but the unit is MiB.
	MaxResourceVolumeMB int64 `json:"maxResourceVolumeMB,omitempty"`
	NvmeDiskSizeInMiB   int64 `json:"nvmeDiskSizeInMiB,omitempty"`
	// DiskCapabilitiesKnown is true when the record reported EphemeralOSDiskSupported. Without it the
	// disk fields above are absent rather than zero (the embedded full-region catalogues lack them),
	// so "no ephemeral OS disk" is a default, not a fact.
	DiskCapabilitiesKnown bool `json:"diskCapabilitiesKnown"`

	// UltraSSDAvailable is the SKU-level capability; UltraSSDZones the zones whose zone details say so.
	UltraSSDAvailable bool     `json:"ultraSSDAvailable,omitempty"`
	UltraSSDZones     []string `json:"ultraSSDZones,omitempty"`

	// Zones are the ARM zone numbers ("1", "2", "3") the SKU is offered in, restricted zones removed,
	// sorted. Empty means regional only.
	Zones []string `json:"zones"`
	// LocationRestricted is true when a Location restriction names the region: the subscription may not
	// use the SKU there at all.
	LocationRestricted bool `json:"locationRestricted,omitempty"`
	// OfferedInRegion is false when the record lists locations and the region is not among them.
	OfferedInRegion bool `json:"offeredInRegion"`
}

// Upper bounds that keep all later arithmetic (bytes as int64) far from overflow; real values are
// orders of magnitude smaller.
const (
	maxCount     = 1 << 20 // vCPUs, GPUs
	maxMemoryGiB = 1 << 20 // 1 PiB, the most kubeletconfig.Reserve accepts
	maxDiskBytes = 1 << 50 // 1 PiB
	maxDiskMiB   = 1 << 30 // 1 PiB
)

const unnamedSKU = "(unnamed SKU)"

// Validate reports the first field Build cannot use: a missing name or size, a count or size outside
// [0, 2^20] (vCPUs, GPUs, GiB of memory) or [0, 1 PiB] (disks), an architecture other than amd64 or
// arm64, or Hyper-V generations other than a non-empty set of "1" and "2". Errors are
// *api.FieldError values of class ErrBadSKU. A SKU ReadSKUs returns always passes.
func (s *SKU) Validate() error {
	switch {
	case s == nil:
		return skuMissing(unnamedSKU, "record")
	case s.Name == "":
		return skuMissing(unnamedSKU, "name")
	case s.Size == "":
		return skuMissing(s.Name, "size")
	}
	for _, f := range []struct {
		field string
		value int64
		max   int64
	}{
		{"vCPUs", s.VCPUs, maxCount},
		{"vCPUsAvailable", s.VCPUsAvailable, maxCount},
		{"gpus", s.GPUs, maxCount},
		{"cachedDiskBytes", s.CachedDiskBytes, maxDiskBytes},
		{"maxResourceVolumeMB", s.MaxResourceVolumeMB, maxDiskMiB},
		{"nvmeDiskSizeInMiB", s.NvmeDiskSizeInMiB, maxDiskMiB},
	} {
		if f.value < 0 || f.value > f.max {
			return skuErr(s.Name, f.field, "an integer from 0 to "+strconv.FormatInt(f.max, 10),
				strconv.FormatInt(f.value, 10))
		}
	}
	if math.IsNaN(s.MemoryGiB) || s.MemoryGiB < 0 || s.MemoryGiB > maxMemoryGiB {
		return skuErr(s.Name, "memoryGiB", "a number from 0 to "+strconv.Itoa(maxMemoryGiB),
			strconv.FormatFloat(s.MemoryGiB, 'g', -1, 64))
	}
	if s.Arch != api.ArchAMD64 && s.Arch != api.ArchARM64 {
		return skuErr(s.Name, "arch", api.ArchAMD64+" or "+api.ArchARM64, s.Arch)
	}
	if s.HyperVGenerations.Len() == 0 || !sets.New("1", "2").IsSuperset(s.HyperVGenerations) {
		return skuErr(s.Name, "hyperVGenerations", `a non-empty set of "1" and "2"`,
			strings.Join(sets.List(s.HyperVGenerations), ","))
	}
	return nil
}
