package azure

import (
	"errors"
	"strings"

	"github.com/napkit/napkit/launch"
)

// armZones converts a zone label to the VM's ARM zones: "westus2-1" → ["1"],
// launch.RegionalZone → none (a regional VM has no zones property).
func armZones(zone string) ([]string, error) { return launch.ZoneNumbers(zone) }

// zoneLabel converts a VM's location and ARM zones to the zone label: no
// zones → launch.RegionalZone, one zone → "<location lower>-<zone>".
func zoneLabel(location string, zones []*string) (string, error) {
	switch {
	case len(zones) == 0:
		return launch.RegionalZone, nil
	case len(zones) > 1:
		return "", errors.New("resource has multiple zones")
	case zones[0] == nil || *zones[0] == "":
		return launch.RegionalZone, nil
	case location == "":
		return "", errors.New("location is required for zonal resource")
	}
	return strings.ToLower(location) + "-" + *zones[0], nil
}

// isZonal reports whether zone is an availability zone rather than regional.
func isZonal(zone string) bool { return zone != launch.RegionalZone }
