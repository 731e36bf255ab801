package instancetype

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// SKUList is an ARM Resource SKU list read for one region: the records that read as SKUs, and the
// ones that did not, so a catalogue built from it accounts for every record.
type SKUList struct {
	// SKUs are the records that read, in list order.
	SKUs []*SKU
	// Unreadable are the records that did not, as ExcludedBadSKU exclusions whose reason is the
	// *api.FieldError (without its class); a record without a name is called "(entry i)" after its index in the list.
	Unreadable []Excluded
}

// Build is Build(l.SKUs, opts), with l.Unreadable listed among the catalogue's exclusions.
func (l *SKUList) Build(opts Options) (*Catalogue, error) {
	return buildCatalogue(l.SKUs, l.Unreadable, opts)
}

// ReadSKUs reads a Resource SKUs list as ARM returns it ({"value": [...]}, extra keys such as
// nextLink ignored) or as a bare JSON array, for region: each record becomes a SKU with region's
// zones and restrictions applied, or an Unreadable exclusion when a capability does not read. Errors
// (JSON that is not such a list) wrap ErrBadSKUList and name the entry and the JSON field. Fields a VM
// catalogue never reads (apiVersions, capacity, costs) are skipped.
//
// It reads ARM's JSON format without the Azure SDK; package azuresku converts the SDK's
// armcompute.ResourceSKU records through the same code.
func ReadSKUs(data []byte, region string) (*SKUList, error) {
	records, err := parseARMSKUs(data)
	if err != nil {
		return nil, err
	}
	return readARMSKUs(records, region), nil
}

// parseARMSKUs decodes the list into ARM's record shape. It goes through plain structs, not a map per
// object, so it is fast and its errors carry the JSON path of a bad field.
func parseARMSKUs(data []byte) ([]*armSKU, error) {
	if records, ok := parseARMSKUsAtOnce(data); ok {
		return records, nil
	}
	return parseARMSKUsByEntry(data)
}

// parseARMSKUsByEntry splits the list and decodes entry by entry, so that an error names its entry.
func parseARMSKUsByEntry(data []byte) ([]*armSKU, error) {
	entries, err := splitSKUList(data)
	if err != nil {
		return nil, err
	}
	records := make([]*armSKU, len(entries))
	for i, raw := range entries {
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return nil, fmt.Errorf("%w: entry %d: null", ErrBadSKUList, i)
		}
		var w armSKU
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, fmt.Errorf("%w: entry %d: %w", ErrBadSKUList, i, err)
		}
		records[i] = &w
	}
	return records, nil
}

// parseARMSKUsAtOnce decodes a well-formed list in one pass, which is what parseARMSKUs's entry by
// entry decode gives for it: each entry goes into a fresh armSKU either way. It reports false for
// any list that pass refuses or that holds a null entry, and parseARMSKUs then reads it entry by
// entry, which words the error with the entry's index. Why: splitting first and then decoding each
// entry scans the 1.2 MB embedded eastus list four times; this scans it twice.
func parseARMSKUsAtOnce(data []byte) ([]*armSKU, bool) {
	trimmed := bytes.TrimSpace(data)
	var records []*armSKU
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		if json.Unmarshal(trimmed, &records) != nil {
			return nil, false
		}
	case len(trimmed) > 0 && trimmed[0] == '{':
		var list struct {
			Value *[]*armSKU `json:"value"`
		}
		if json.Unmarshal(trimmed, &list) != nil || list.Value == nil {
			return nil, false
		}
		records = *list.Value
	default:
		return nil, false
	}
	for _, r := range records {
		if r == nil {
			return nil, false
		}
	}
	return records, true
}

// readARMSKUs converts records for region; a nil record is unreadable.
func readARMSKUs(records []*armSKU, region string) *SKUList {
	list := &SKUList{SKUs: make([]*SKU, 0, len(records))}
	for i, raw := range records {
		sku, err := readARMSKU(raw, region)
		if err != nil {
			name := ""
			if raw != nil {
				name = deref(raw.Name)
			}
			list.Unreadable = append(list.Unreadable, Excluded{Name: entryName(name, i), Kind: ExcludedBadSKU, Reason: exclusionReason(err)})
			continue
		}
		list.SKUs = append(list.SKUs, sku)
	}
	return list
}

// entryName is name, or "(entry i)" for a record without one.
func entryName(name string, i int) string {
	if name == "" {
		return fmt.Sprintf("(entry %d)", i)
	}
	return name
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

// The arm* types are ARM's Resource SKU record as JSON spells it (encoding/json matches the names
// case-insensitively): the fields a catalogue reads, as pointers so absent and empty differ.
type armSKU struct {
	ResourceType *string            `json:"resourceType"`
	Name         *string            `json:"name"`
	Tier         *string            `json:"tier"`
	Size         *string            `json:"size"`
	Family       *string            `json:"family"`
	Kind         *string            `json:"kind"`
	Locations    []*string          `json:"locations"`
	LocationInfo []*armLocationInfo `json:"locationInfo"`
	Capabilities []*armCapability   `json:"capabilities"`
	Restrictions []*armRestriction  `json:"restrictions"`
}

type armCapability struct {
	Name  *string `json:"name"`
	Value *string `json:"value"`
}

type armLocationInfo struct {
	Location          *string           `json:"location"`
	Zones             []*string         `json:"zones"`
	ZoneDetails       []*armZoneDetails `json:"zoneDetails"`
	ExtendedLocations []*string         `json:"extendedLocations"`
	Type              *string           `json:"type"`
}

type armZoneDetails struct {
	Name         []*string        `json:"name"`
	Capabilities []*armCapability `json:"capabilities"`
}

type armRestriction struct {
	Type            *string             `json:"type"`
	ReasonCode      *string             `json:"reasonCode"`
	Values          []*string           `json:"values"`
	RestrictionInfo *armRestrictionInfo `json:"restrictionInfo"`
}

type armRestrictionInfo struct {
	Locations []*string `json:"locations"`
	Zones     []*string `json:"zones"`
}
