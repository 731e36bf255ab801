package launch

import (
	"fmt"
	"strings"
)

// ZoneNumbers converts a zone label to the zone numbers a cloud API takes:
// "westus2-1" → ["1"], RegionalZone → none (a regional machine has no zone).
func ZoneNumbers(zone string) ([]string, error) {
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
