package instancetype

import (
	"slices"
	"strings"
)

// readLocation fills the region-specific fields: zones (minus restricted ones), zonal Ultra SSD support,
// and whether the region is offered or restricted at all.
func (s *SKU) readLocation(raw *armSKU, region string) {
	s.OfferedInRegion = offeredIn(raw, region)
	var zones, ultraZones []string
	for _, li := range raw.LocationInfo {
		if li == nil || !strings.EqualFold(deref(li.Location), region) {
			continue
		}
		zones = appendZones(zones, li.Zones)
		for _, zd := range li.ZoneDetails {
			if zd != nil && hasTrueCapability(zd.Capabilities, capUltraSSD) {
				ultraZones = appendZones(ultraZones, zd.Name)
			}
		}
	}
	restricted := s.readRestrictions(raw.Restrictions, region)
	s.Zones = withoutZones(zones, restricted)
	if ultra := withoutZones(ultraZones, restricted); len(ultra) > 0 {
		s.UltraSSDZones = ultra
	}
}

// readRestrictions sets LocationRestricted and returns the zones restricted in region. A restriction
// applies to region when its values or its restriction info name it.
func (s *SKU) readRestrictions(restrictions []*armRestriction, region string) []string {
	var restricted []string
	for _, r := range restrictions {
		if r == nil || r.Type == nil || !restrictionApplies(r, region) {
			continue
		}
		switch *r.Type {
		case restrictionLocation:
			s.LocationRestricted = true
		case restrictionZone:
			if r.RestrictionInfo != nil {
				restricted = appendZones(restricted, r.RestrictionInfo.Zones)
			}
		}
	}
	return restricted
}

// ARM's restriction types (ResourceSkuRestrictionsType).
const (
	restrictionLocation = "Location"
	restrictionZone     = "Zone"
)

func restrictionApplies(r *armRestriction, region string) bool {
	if containsFold(r.Values, region) {
		return true
	}
	return r.RestrictionInfo != nil && containsFold(r.RestrictionInfo.Locations, region)
}

// offeredIn is true when the record names region, or names no location at all (a hand-built record).
func offeredIn(raw *armSKU, region string) bool {
	named := false
	for _, li := range raw.LocationInfo {
		if li != nil && li.Location != nil {
			named = true
			if strings.EqualFold(*li.Location, region) {
				return true
			}
		}
	}
	for _, l := range raw.Locations {
		if l != nil {
			named = true
		}
	}
	return !named || containsFold(raw.Locations, region)
}

func hasTrueCapability(caps []*armCapability, name string) bool {
	for _, c := range caps {
		if c != nil && deref(c.Name) == name {
			if b, err := parseBool(deref(c.Value)); err == nil && b {
				return true
			}
		}
	}
	return false
}

func appendZones(zones []string, add []*string) []string {
	for _, z := range add {
		if z != nil && *z != "" && !slices.Contains(zones, *z) {
			zones = append(zones, *z)
		}
	}
	return zones
}

// withoutZones returns zones minus removed, sorted; never nil, so JSON shows [] for regional SKUs.
func withoutZones(zones, removed []string) []string {
	out := make([]string, 0, len(zones))
	for _, z := range zones {
		if !slices.Contains(removed, z) {
			out = append(out, z)
		}
	}
	slices.Sort(out)
	return out
}

func containsFold(list []*string, s string) bool {
	for _, v := range list {
		if v != nil && strings.EqualFold(*v, s) {
			return true
		}
	}
	return false
}
