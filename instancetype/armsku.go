package instancetype

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
)

// Capability names as ARM spells them.
const (
	capVCPUs              = "vCPUs"
	capVCPUsAvailable     = "vCPUsAvailable"
	capMemoryGB           = "MemoryGB"
	capGPUs               = "GPUs"
	capArch               = "CpuArchitectureType"
	capHyperVGenerations  = "HyperVGenerations"
	capEphemeralPlacement = "SupportedEphemeralOSDiskPlacements"
	capEphemeralSupported = "EphemeralOSDiskSupported"
	capUltraSSD           = "UltraSSDAvailable"
)

// boolCapabilities and intCapabilities map capability names to the SKU field they fill.
var boolCapabilities = map[string]func(*SKU) *bool{
	"LowPriorityCapable":           func(s *SKU) *bool { return &s.LowPriorityCapable },
	"PremiumIO":                    func(s *SKU) *bool { return &s.PremiumIO },
	"AcceleratedNetworkingEnabled": func(s *SKU) *bool { return &s.AcceleratedNetworking },
	"EncryptionAtHostSupported":    func(s *SKU) *bool { return &s.EncryptionAtHostSupported },
	"TrustedLaunchDisabled":        func(s *SKU) *bool { return &s.TrustedLaunchDisabled },
	capEphemeralSupported:          func(s *SKU) *bool { return &s.EphemeralOSDiskSupported },
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

// readARMSKU converts one ARM Resource SKU record for region into a SKU. vCPUs and MemoryGB are
// required; other capabilities default to false/0 when absent, the architecture to amd64 and the
// Hyper-V generation to 1 (ARM omits it only on sizes older than Gen2). Errors are *api.FieldError values
// of class ErrBadSKU. Nil pointers anywhere in the record are treated as absent.
func readARMSKU(raw *armSKU, region string) (*SKU, error) {
	if raw == nil {
		return nil, skuMissing(unnamedSKU, "record")
	}
	name := deref(raw.Name)
	if name == "" {
		return nil, skuMissing(unnamedSKU, "name")
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

func (s *SKU) readCapabilities(caps []*armCapability) error {
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
		return skuMissing(s.Name, "capability "+capVCPUs)
	}
	if !haveMemory {
		return skuMissing(s.Name, "capability "+capMemoryGB)
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
		s.DiskCapabilitiesKnown = s.DiskCapabilitiesKnown || name == capEphemeralSupported
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
	return skuErr(s.Name, "capability "+name, want, value)
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
