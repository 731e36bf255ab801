package instancetype

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
)

// ParseSKUs reads a Resource SKUs list as ARM returns it ({"value": [...]}, extra keys such as nextLink
// ignored) or as a bare JSON array, into the SDK's types. Errors wrap ErrBadSKUList and name the entry
// and the JSON field. Fields a VM catalogue never reads (apiVersions, capacity, costs) are skipped.
//
// It decodes through plain structs rather than the SDK's own UnmarshalJSON, which goes through a map per
// object: this is several times faster and its errors carry the JSON path of the bad field.
func ParseSKUs(data []byte) ([]*armcompute.ResourceSKU, error) {
	entries, err := splitSKUList(data)
	if err != nil {
		return nil, err
	}
	skus := make([]*armcompute.ResourceSKU, len(entries))
	for i, raw := range entries {
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return nil, fmt.Errorf("%w: entry %d: null", ErrBadSKUList, i)
		}
		var w wireSKU
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, fmt.Errorf("%w: entry %d: %w", ErrBadSKUList, i, err)
		}
		skus[i] = w.toARM()
	}
	return skus, nil
}

// splitSKUList returns the raw entries of either accepted list shape.
func splitSKUList(data []byte) ([]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%w: empty input", ErrBadSKUList)
	}
	var entries []json.RawMessage
	switch trimmed[0] {
	case '[':
		if err := json.Unmarshal(trimmed, &entries); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadSKUList, err)
		}
	case '{':
		var list struct {
			Value *[]json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(trimmed, &list); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadSKUList, err)
		}
		if list.Value == nil {
			return nil, fmt.Errorf("%w: object has no \"value\" array", ErrBadSKUList)
		}
		entries = *list.Value
	default:
		return nil, fmt.Errorf("%w: want a JSON object or array, got %q", ErrBadSKUList, excerpt(trimmed))
	}
	return entries, nil
}

func excerpt(b []byte) string {
	const limit = 20
	if len(b) > limit {
		return string(b[:limit]) + "..."
	}
	return string(b)
}

// The wire types mirror the ARM JSON field names (encoding/json matches them case-insensitively).
type wireSKU struct {
	ResourceType *string             `json:"resourceType"`
	Name         *string             `json:"name"`
	Tier         *string             `json:"tier"`
	Size         *string             `json:"size"`
	Family       *string             `json:"family"`
	Kind         *string             `json:"kind"`
	Locations    []*string           `json:"locations"`
	LocationInfo []*wireLocationInfo `json:"locationInfo"`
	Capabilities []*wireCapability   `json:"capabilities"`
	Restrictions []*wireRestriction  `json:"restrictions"`
}

type wireCapability struct {
	Name  *string `json:"name"`
	Value *string `json:"value"`
}

type wireLocationInfo struct {
	Location          *string           `json:"location"`
	Zones             []*string         `json:"zones"`
	ZoneDetails       []*wireZoneDetail `json:"zoneDetails"`
	ExtendedLocations []*string         `json:"extendedLocations"`
	Type              *string           `json:"type"`
}

type wireZoneDetail struct {
	Name         []*string         `json:"name"`
	Capabilities []*wireCapability `json:"capabilities"`
}

type wireRestriction struct {
	Type            *string   `json:"type"`
	ReasonCode      *string   `json:"reasonCode"`
	Values          []*string `json:"values"`
	RestrictionInfo *struct {
		Locations []*string `json:"locations"`
		Zones     []*string `json:"zones"`
	} `json:"restrictionInfo"`
}

func (w *wireSKU) toARM() *armcompute.ResourceSKU {
	sku := &armcompute.ResourceSKU{
		ResourceType: w.ResourceType,
		Name:         w.Name,
		Tier:         w.Tier,
		Size:         w.Size,
		Family:       w.Family,
		Kind:         w.Kind,
		Locations:    w.Locations,
		Capabilities: toARMCapabilities(w.Capabilities),
	}
	if w.LocationInfo != nil {
		sku.LocationInfo = make([]*armcompute.ResourceSKULocationInfo, len(w.LocationInfo))
		for i, li := range w.LocationInfo {
			sku.LocationInfo[i] = li.toARM()
		}
	}
	if w.Restrictions != nil {
		sku.Restrictions = make([]*armcompute.ResourceSKURestrictions, len(w.Restrictions))
		for i, r := range w.Restrictions {
			sku.Restrictions[i] = r.toARM()
		}
	}
	return sku
}

func toARMCapabilities(caps []*wireCapability) []*armcompute.ResourceSKUCapabilities {
	if caps == nil {
		return nil
	}
	out := make([]*armcompute.ResourceSKUCapabilities, len(caps))
	for i, c := range caps {
		if c != nil {
			out[i] = &armcompute.ResourceSKUCapabilities{Name: c.Name, Value: c.Value}
		}
	}
	return out
}

func (li *wireLocationInfo) toARM() *armcompute.ResourceSKULocationInfo {
	if li == nil {
		return nil
	}
	out := &armcompute.ResourceSKULocationInfo{
		Location:          li.Location,
		Zones:             li.Zones,
		ExtendedLocations: li.ExtendedLocations,
		Type:              (*armcompute.ExtendedLocationType)(li.Type),
	}
	if li.ZoneDetails != nil {
		out.ZoneDetails = make([]*armcompute.ResourceSKUZoneDetails, len(li.ZoneDetails))
		for i, zd := range li.ZoneDetails {
			if zd != nil {
				out.ZoneDetails[i] = &armcompute.ResourceSKUZoneDetails{
					Name:         zd.Name,
					Capabilities: toARMCapabilities(zd.Capabilities),
				}
			}
		}
	}
	return out
}

func (r *wireRestriction) toARM() *armcompute.ResourceSKURestrictions {
	if r == nil {
		return nil
	}
	out := &armcompute.ResourceSKURestrictions{
		Type:       (*armcompute.ResourceSKURestrictionsType)(r.Type),
		ReasonCode: (*armcompute.ResourceSKURestrictionsReasonCode)(r.ReasonCode),
		Values:     r.Values,
	}
	if r.RestrictionInfo != nil {
		out.RestrictionInfo = &armcompute.ResourceSKURestrictionInfo{
			Locations: r.RestrictionInfo.Locations,
			Zones:     r.RestrictionInfo.Zones,
		}
	}
	return out
}
