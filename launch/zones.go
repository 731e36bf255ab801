package launch

import (
	"errors"
	"fmt"
	"strings"
)

// armZones converts a zone label to the VM's ARM zones: "westus2-1" → ["1"],
// RegionalZone → none (a regional VM has no zones property).
func armZones(zone string) ([]string, error) {
	if zone == RegionalZone {
		return nil, nil
	}
	i := strings.LastIndexByte(zone, '-')
	n := zone[i+1:]
	if i <= 0 || n == "" || strings.Trim(n, "0123456789") != "" {
		return nil, fmt.Errorf("zone %q is neither <region>-<n> nor %q", zone, RegionalZone)
	}
	return []string{n}, nil
}

// zoneLabel converts a VM's location and ARM zones to the zone label: no
// zones → RegionalZone, one zone → "<location lower>-<zone>".
func zoneLabel(location string, zones []*string) (string, error) {
	switch {
	case len(zones) == 0:
		return RegionalZone, nil
	case len(zones) > 1:
		return "", errors.New("resource has multiple zones")
	case zones[0] == nil || *zones[0] == "":
		return RegionalZone, nil
	case location == "":
		return "", errors.New("location is required for zonal resource")
	}
	return strings.ToLower(location) + "-" + *zones[0], nil
}

// isZonal reports whether zone is an availability zone rather than regional.
func isZonal(zone string) bool { return zone != RegionalZone }
