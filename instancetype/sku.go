package instancetype

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
)

// SKU is one Azure VM size as the Resource SKUs API describes it in one region, with the string-valued
// capabilities converted to typed values. Build reads nothing else from the ARM record.
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

// Capability names as ARM spells them.
const (
	capVCPUs              = "vCPUs"
	capVCPUsAvailable     = "vCPUsAvailable"
	capMemoryGB           = "MemoryGB"
	capGPUs               = "GPUs"
	capArch               = "CpuArchitectureType"
	capHyperVGenerations  = "HyperVGenerations"
	capEphemeralPlacement = "SupportedEphemeralOSDiskPlacements"
	capUltraSSD           = "UltraSSDAvailable"
)

// Upper bounds that keep all later arithmetic (bytes as int64) far from overflow; real values are
// orders of magnitude smaller.
const (
	maxCount     = 1 << 20 // vCPUs, GPUs
	maxMemoryGiB = 1 << 20 // 1 PiB, the most kubeletconfig.Reserve accepts
	maxDiskBytes = 1 << 50 // 1 PiB
	maxDiskMiB   = 1 << 30 // 1 PiB
)

const unnamedSKU = "(unnamed SKU)"

// boolCapabilities and intCapabilities map capability names to the SKU field they fill.
var boolCapabilities = map[string]func(*SKU) *bool{
	"LowPriorityCapable":           func(s *SKU) *bool { return &s.LowPriorityCapable },
	"PremiumIO":                    func(s *SKU) *bool { return &s.PremiumIO },
	"AcceleratedNetworkingEnabled": func(s *SKU) *bool { return &s.AcceleratedNetworking },
	"EncryptionAtHostSupported":    func(s *SKU) *bool { return &s.EncryptionAtHostSupported },
	"TrustedLaunchDisabled":        func(s *SKU) *bool { return &s.TrustedLaunchDisabled },
	"EphemeralOSDiskSupported":     func(s *SKU) *bool { return &s.EphemeralOSDiskSupported },
	capUltraSSD:                    func(s *SKU) *bool { return &s.UltraSSDAvailable },
}

var intCapabilities = map[string]struct {
	field func(*SKU) *int64
	max   int64
}{
	capVCPUs:              {func(s *SKU) *int64 { return &s.VCPUs }, maxCount},
	capVCPUsAvailable:     {func(s *SKU) *int64 { return &s.VCPUsAvailable }, maxCount},
	capGPUs:               {func(s *SKU) *int64 { return &s.GPUs }, maxCount},
	"CachedDiskBytes":     {func(s *SKU) *int64 { return &s.CachedDiskBytes }, maxDiskBytes},
	"MaxResourceVolumeMB": {func(s *SKU) *int64 { return &s.MaxResourceVolumeMB }, maxDiskMiB},
	"NvmeDiskSizeInMiB":   {func(s *SKU) *int64 { return &s.NvmeDiskSizeInMiB }, maxDiskMiB},
}

// NewSKU converts one ARM Resource SKU record for region into a SKU. vCPUs and MemoryGB are required;
// other capabilities default to false/0 when absent, the architecture to amd64 and the Hyper-V
// generation to 1 (ARM omits it only on sizes older than Gen2). Errors are *SKUError values wrapping
// ErrBadSKU. Nil pointers anywhere in the record are treated as absent.
func NewSKU(raw *armcompute.ResourceSKU, region string) (*SKU, error) {
	if raw == nil {
		return nil, &SKUError{SKU: unnamedSKU, Field: "record", Missing: true}
	}
	name := deref(raw.Name)
	if name == "" {
		return nil, &SKUError{SKU: unnamedSKU, Field: "name", Missing: true}
	}
	s := &SKU{
		Name:         name,
		Size:         deref(raw.Size),
		ResourceType: deref(raw.ResourceType),
		Family:       deref(raw.Family),
	}
	if s.Size == "" {
		s.Size = sizeFromName(name)
	}
	if err := s.readCapabilities(raw.Capabilities); err != nil {
		return nil, err
	}
	s.readLocation(raw, region)
	return s, nil
}

// sizeFromName drops the tier prefix: "Standard_D2s_v3" → "D2s_v3".
func sizeFromName(name string) string {
	if _, size, ok := strings.Cut(name, "_"); ok {
		return size
	}
	return name
}

func (s *SKU) readCapabilities(caps []*armcompute.ResourceSKUCapabilities) error {
	var haveCPUs, haveMemory, haveAvailable bool
	s.Arch = api.ArchAMD64
	for _, c := range caps {
		if c == nil || c.Name == nil || c.Value == nil {
			continue
		}
		name, value := *c.Name, *c.Value
		switch name {
		case capVCPUs:
			haveCPUs = true
		case capVCPUsAvailable:
			haveAvailable = true
		case capMemoryGB:
			haveMemory = true
		}
		if err := s.readCapability(name, value); err != nil {
			return err
		}
	}
	if !haveCPUs {
		return &SKUError{SKU: s.Name, Field: "capability " + capVCPUs, Missing: true}
	}
	if !haveMemory {
		return &SKUError{SKU: s.Name, Field: "capability " + capMemoryGB, Missing: true}
	}
	if !haveAvailable {
		s.VCPUsAvailable = s.VCPUs
	}
	if s.HyperVGenerations == nil {
		s.HyperVGenerations = sets.New("1")
	}
	return nil
}

// readCapability stores one capability; names napkit does not use are ignored.
func (s *SKU) readCapability(name, value string) error {
	if field, ok := boolCapabilities[name]; ok {
		b, err := parseBool(value)
		if err != nil {
			return s.capabilityError(name, value, "True or False")
		}
		*field(s) = b
		return nil
	}
	if c, ok := intCapabilities[name]; ok {
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 || n > c.max {
			return s.capabilityError(name, value, "an integer from 0 to "+strconv.FormatInt(c.max, 10))
		}
		*c.field(s) = n
		return nil
	}
	switch name {
	case capMemoryGB:
		return s.readMemory(value)
	case capArch:
		return s.readArch(value)
	case capHyperVGenerations:
		return s.readGenerations(value)
	case capEphemeralPlacement:
		s.SupportedEphemeralOSDiskPlacements = splitList(value)
	}
	return nil
}

func (s *SKU) capabilityError(name, value, want string) error {
	return &SKUError{SKU: s.Name, Field: "capability " + name, Want: want, Value: value}
}

func (s *SKU) readMemory(value string) error {
	gib, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(gib) || gib < 0 || gib > maxMemoryGiB {
		return s.capabilityError(capMemoryGB, value, "a number")
	}
	s.MemoryGiB = gib
	return nil
}

func (s *SKU) readArch(value string) error {
	switch {
	case strings.EqualFold(value, "x64"):
		s.Arch = api.ArchAMD64
	case strings.EqualFold(value, "Arm64"):
		s.Arch = api.ArchARM64
	default:
		return s.capabilityError(capArch, value, "x64 or Arm64")
	}
	return nil
}

// readGenerations turns "V1,V2" into {"1", "2"}. The three spellings ARM uses are matched directly;
// anything else goes through the general list parser.
func (s *SKU) readGenerations(value string) error {
	switch value {
	case "V1":
		s.HyperVGenerations = sets.New("1")
		return nil
	case "V2":
		s.HyperVGenerations = sets.New("2")
		return nil
	case "V1,V2":
		s.HyperVGenerations = sets.New("1", "2")
		return nil
	}
	gens := sets.New[string]()
	for _, g := range splitList(value) {
		switch {
		case strings.EqualFold(g, "V1"):
			gens.Insert("1")
		case strings.EqualFold(g, "V2"):
			gens.Insert("2")
		default:
			return s.capabilityError(capHyperVGenerations, value, "a list of V1 and V2")
		}
	}
	if gens.Len() == 0 {
		return s.capabilityError(capHyperVGenerations, value, "a list of V1 and V2")
	}
	s.HyperVGenerations = gens
	return nil
}

// parseBool accepts ARM's "True"/"False" in any case, and nothing else.
func parseBool(v string) (bool, error) {
	switch {
	case strings.EqualFold(v, "true"):
		return true, nil
	case strings.EqualFold(v, "false"):
		return false, nil
	}
	return false, ErrBadSKU
}

// splitList splits a comma-separated capability value, trimming spaces and dropping empty and repeated
// items, keeping the first-seen order.
func splitList(v string) []string {
	var out []string
	for item := range strings.SplitSeq(v, ",") {
		item = strings.TrimSpace(item)
		if item != "" && !slices.Contains(out, item) {
			out = append(out, item)
		}
	}
	return out
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
