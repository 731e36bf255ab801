package instancetype

import (
	"errors"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
)

// compactColumns are SKU's fields in declaration order (TestCompactColumns checks the order).
var compactColumns = []compactColumn{
	stringColumn("name", func(s *SKU) *string { return &s.Name }),
	stringColumn("size", func(s *SKU) *string { return &s.Size }),
	stringColumn("resourceType", func(s *SKU) *string { return &s.ResourceType }),
	stringColumn("family", func(s *SKU) *string { return &s.Family }),
	intColumn("vCPUs", func(s *SKU) *int64 { return &s.VCPUs }),
	intColumn("vCPUsAvailable", func(s *SKU) *int64 { return &s.VCPUsAvailable }),
	floatColumn("memoryGiB", func(s *SKU) *float64 { return &s.MemoryGiB }),
	intColumn("gpus", func(s *SKU) *int64 { return &s.GPUs }),
	stringColumn("arch", func(s *SKU) *string { return &s.Arch }),
	setColumn("hyperVGenerations", func(s *SKU) *sets.Set[string] { return &s.HyperVGenerations }),
	boolColumn("lowPriorityCapable", func(s *SKU) *bool { return &s.LowPriorityCapable }),
	boolColumn("premiumIO", func(s *SKU) *bool { return &s.PremiumIO }),
	boolColumn("acceleratedNetworking", func(s *SKU) *bool { return &s.AcceleratedNetworking }),
	boolColumn("encryptionAtHostSupported", func(s *SKU) *bool { return &s.EncryptionAtHostSupported }),
	boolColumn("trustedLaunchDisabled", func(s *SKU) *bool { return &s.TrustedLaunchDisabled }),
	boolColumn("ephemeralOSDiskSupported", func(s *SKU) *bool { return &s.EphemeralOSDiskSupported }),
	listColumn("supportedEphemeralOSDiskPlacements", func(s *SKU) *[]string { return &s.SupportedEphemeralOSDiskPlacements }),
	intColumn("cachedDiskBytes", func(s *SKU) *int64 { return &s.CachedDiskBytes }),
	intColumn("maxResourceVolumeMB", func(s *SKU) *int64 { return &s.MaxResourceVolumeMB }),
	intColumn("nvmeDiskSizeInMiB", func(s *SKU) *int64 { return &s.NvmeDiskSizeInMiB }),
	boolColumn("diskCapabilitiesKnown", func(s *SKU) *bool { return &s.DiskCapabilitiesKnown }),
	boolColumn("ultraSSDAvailable", func(s *SKU) *bool { return &s.UltraSSDAvailable }),
	listColumn("ultraSSDZones", func(s *SKU) *[]string { return &s.UltraSSDZones }),
	listColumn("zones", func(s *SKU) *[]string { return &s.Zones }),
	boolColumn("locationRestricted", func(s *SKU) *bool { return &s.LocationRestricted }),
	boolColumn("offeredInRegion", func(s *SKU) *bool { return &s.OfferedInRegion }),
}

func stringColumn(name string, field func(*SKU) *string) compactColumn {
	return compactColumn{name: name,
		get: func(s *SKU) string { return orEmpty(*field(s)) },
		set: func(s *SKU, cell string) error { *field(s) = fromEmpty(cell); return nil },
	}
}

func intColumn(name string, field func(*SKU) *int64) compactColumn {
	return compactColumn{name: name,
		get: func(s *SKU) string { return strconv.FormatInt(*field(s), 10) },
		set: func(s *SKU, cell string) (err error) { *field(s), err = strconv.ParseInt(cell, 10, 64); return err },
	}
}

// floatColumn writes the shortest text that reads back to the same float64.
func floatColumn(name string, field func(*SKU) *float64) compactColumn {
	return compactColumn{name: name,
		get: func(s *SKU) string { return strconv.FormatFloat(*field(s), 'g', -1, 64) },
		set: func(s *SKU, cell string) (err error) { *field(s), err = strconv.ParseFloat(cell, 64); return err },
	}
}

var errBool = errors.New("want 1 or 0")

func boolColumn(name string, field func(*SKU) *bool) compactColumn {
	return compactColumn{name: name,
		get: func(s *SKU) string {
			if *field(s) {
				return "1"
			}
			return "0"
		},
		set: func(s *SKU, cell string) error {
			if cell != "1" && cell != "0" {
				return errBool
			}
			*field(s) = cell == "1"
			return nil
		},
	}
}

// listColumn keeps a nil list nil. A list with an element holding a comma, or empty but not nil, has
// no cell that reads back to it: writeCompact finds that by reading its output back.
func listColumn(name string, field func(*SKU) *[]string) compactColumn {
	return compactColumn{name: name,
		get: func(s *SKU) string { return orEmpty(strings.Join(*field(s), ",")) },
		set: func(s *SKU, cell string) error {
			if cell != compactEmpty {
				*field(s) = strings.Split(cell, ",")
			}
			return nil
		},
	}
}

func setColumn(name string, field func(*SKU) *sets.Set[string]) compactColumn {
	return compactColumn{name: name,
		get: func(s *SKU) string { return orEmpty(strings.Join(sets.List(*field(s)), ",")) },
		set: func(s *SKU, cell string) error {
			if cell != compactEmpty {
				*field(s) = sets.New(strings.Split(cell, ",")...)
			}
			return nil
		},
	}
}

func orEmpty(s string) string {
	if s == "" {
		return compactEmpty
	}
	return s
}

func fromEmpty(cell string) string {
	if cell == compactEmpty {
		return ""
	}
	return cell
}
