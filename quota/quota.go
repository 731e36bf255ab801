package quota

import (
	"fmt"
	"slices"
	"strings"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// The regional quota names of the usage API.
const (
	RegionalCores    = "cores"
	LowPriorityCores = "lowPriorityCores"
)

// Usage is one quota of the usage API: how many units (vCPUs) are used and allowed.
type Usage struct {
	Name    string `json:"name"`
	Current int64  `json:"current"`
	Limit   int64  `json:"limit"`
}

// Table is a region's usages by quota name (names compared case-insensitively).
type Table struct {
	byName map[string]Usage
}

// NewTable indexes usages; a later entry of the same name wins.
func NewTable(usages []Usage) *Table {
	t := &Table{byName: make(map[string]Usage, len(usages))}
	for _, u := range usages {
		t.byName[strings.ToLower(u.Name)] = u
	}
	return t
}

// Check reports whether one more VM of family with vcpus fits the quotas of capacityType, and when
// it does not, which quota is exhausted, e.g. "vCPU quota standardDSv3Family: 98 of 100 used,
// Standard_D4s_v3 needs 4".
func (t *Table) Check(sku, family string, vcpus int64, capacityType string) (bool, string) {
	if t == nil || vcpus <= 0 {
		return true, ""
	}
	names := []string{family, RegionalCores}
	if capacityType == api.CapacityTypeSpot {
		names = []string{LowPriorityCores}
	}
	for _, name := range names {
		u, ok := t.byName[strings.ToLower(name)]
		if name == "" || !ok {
			continue
		}
		if u.Limit-u.Current < vcpus {
			return false, fmt.Sprintf("vCPU quota %s: %d of %d used, %s needs %d", u.Name, u.Current, u.Limit, sku, vcpus)
		}
	}
	return true, ""
}

// Apply returns cat with every available offering the quotas cannot host marked unavailable, with
// the quota named in its UnavailableReason. Instance types and offerings are copied where they
// change; cat is not modified. A nil table returns cat itself.
func Apply(cat *instancetype.Catalogue, t *Table) *instancetype.Catalogue {
	if t == nil || cat == nil {
		return cat
	}
	out := *cat
	out.InstanceTypes = slices.Clone(cat.InstanceTypes)
	for i, it := range out.InstanceTypes {
		if it.SKU == nil {
			continue
		}
		var offerings instancetype.Offerings
		for j, o := range it.Offerings {
			if !o.Available {
				continue
			}
			ok, why := t.Check(it.Name, it.SKU.Family, int64(it.SKU.VCPUs), o.CapacityType)
			if ok {
				continue
			}
			if offerings == nil {
				offerings = slices.Clone(it.Offerings)
			}
			offerings[j].Available, offerings[j].UnavailableReason = false, why
		}
		if offerings != nil {
			copied := *it
			copied.Offerings = offerings
			out.InstanceTypes[i] = &copied
		}
	}
	return &out
}
