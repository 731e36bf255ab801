package launch

import (
	"math"

	"github.com/napkit/napkit/instancetype"
)

// CandidatesFrom turns a NodeClaim's launch list (instance types from the catalogue, in the order the
// planner chose) into launch candidates. The ephemeral OS disk placement is the one the catalogue
// chose for the node class's disk size; an instance type with no SKU record is skipped, since
// nothing could be launched for it.
func CandidatesFrom(types []*instancetype.InstanceType) []Candidate {
	out := make([]Candidate, 0, len(types))
	for _, it := range types {
		if it == nil || it.SKU == nil {
			continue
		}
		out = append(out, candidateFrom(it))
	}
	return out
}

func candidateFrom(it *instancetype.InstanceType) Candidate {
	c := Candidate{
		SKU:                   it.Name,
		Family:                it.SKU.Family,
		VCPUs:                 int(min(it.SKU.VCPUs, math.MaxInt32)),
		AcceleratedNetworking: it.SKU.AcceleratedNetworking,
		Offerings:             make([]Offering, 0, len(it.Offerings)),
	}
	if disk := it.EphemeralOSDisk; disk.Ephemeral() {
		c.EphemeralOSDiskPlacement = disk.Placement
		c.EphemeralOSDiskMaxGB = int32(min(disk.LocalDiskGB, math.MaxInt32))
	} else {
		c.OSDiskStorageAccountType = disk.StorageAccountType
	}
	for _, o := range it.Offerings {
		c.Offerings = append(c.Offerings, Offering{Zone: o.Zone, CapacityType: o.CapacityType, Price: o.Price, Available: o.Available})
	}
	return c
}
