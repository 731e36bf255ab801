package imagefamily

import (
	"errors"
	"slices"
	"strings"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/requirements"
)

// Fields CheckPlacement and Generate name in their errors (Error.Field); a CLI maps them to its flags.
const (
	FieldInstanceType = "instanceType"
	FieldZone         = "zone"
	FieldCapacityType = "capacityType"
)

// Placement is the node a bootstrap payload is asked for: a NodePool, one of its node class's
// instance types, and the offering (zone and capacity type) it would launch in.
type Placement struct {
	NodePool     *api.NodePool
	InstanceType *instancetype.InstanceType
	// Zone is a zone label ("eastus-1"), or "" or "0" for a regional VM.
	Zone string
	// CapacityType is on-demand or spot; "" means on-demand.
	CapacityType string
}

// CheckPlacement refuses a node that could not exist: a capacity type Azure does not offer, a zone
// the instance type has no offering in (a zone of another region included), or an instance type,
// zone or capacity type the NodePool's requirements (and template labels) exclude. Karpenter would
// never launch such a node, so a payload generated for it would describe nothing real.
//
// The error is an *api.FieldError of class ErrInvalid whose Field is FieldInstanceType, FieldZone or
// FieldCapacityType and whose Value is the rejected value.
func CheckPlacement(p Placement) error {
	if p.NodePool == nil || p.InstanceType == nil {
		return newError(ErrInvalid, "placement", nil, "a NodePool and an instance type are required")
	}
	if err := checkCapacityType(p.CapacityType); err != nil {
		return err
	}
	offering, err := findOffering(p)
	if err != nil {
		return err
	}
	return checkPoolAllows(p, offering)
}

// checkCapacityType accepts the capacity types the Azure provider creates offerings for.
// upstream: pkg/providers/instancetype/instancetypes.go (createOfferings: on-demand and spot only)
func checkCapacityType(ct string) error {
	switch ct {
	case "", api.CapacityTypeOnDemand, api.CapacityTypeSpot:
		return nil
	}
	return newError(ErrInvalid, FieldCapacityType, ct, "want %s or %s (Azure offers no other)", api.CapacityTypeOnDemand, api.CapacityTypeSpot)
}

// findOffering returns the instance type's offering for the zone and capacity type.
func findOffering(p Placement) (instancetype.Offering, error) {
	zone, ct := normalZone(p.Zone), p.CapacityType
	if ct == "" {
		ct = api.CapacityTypeOnDemand
	}
	var zones []string
	zoneFound := false
	for _, o := range p.InstanceType.Offerings {
		if o.Zone == zone {
			zoneFound = true
			if o.CapacityType == ct {
				return o, nil
			}
		}
		if !slices.Contains(zones, o.Zone) {
			zones = append(zones, o.Zone)
		}
	}
	if !zoneFound {
		return instancetype.Offering{}, newError(ErrInvalid, FieldZone, p.Zone, "%s has no offering there; its zones are %s (0 is regional)",
			p.InstanceType.Name, strings.Join(zones, ", "))
	}
	return instancetype.Offering{}, newError(ErrInvalid, FieldCapacityType, ct, "%s has no %s offering in zone %s", p.InstanceType.Name, ct, zone)
}

func normalZone(zone string) string {
	if zone == "" {
		return api.RegionalZone
	}
	return zone
}

// checkPoolAllows intersects the pool's requirements with the labels a node of this instance type and
// offering would carry: every key both define must agree, as Karpenter filters instance types.
func checkPoolAllows(p Placement, offering instancetype.Offering) error {
	node := p.InstanceType.Requirements.Clone()
	for _, r := range offering.Requirements {
		node[r.Key] = r
	}
	pool := requirements.FromAPI(p.NodePool.Spec.Template.Spec.Requirements)
	pool.Add(requirementsOf(requirements.FromLabels(p.NodePool.Spec.Template.ObjectMeta.Labels))...)
	err := node.Intersects(pool)
	if err == nil {
		return nil
	}
	var ie *requirements.IncompatibleError
	if !errors.As(err, &ie) {
		return newError(ErrInvalid, FieldInstanceType, p.InstanceType.Name, "%v", err)
	}
	field, value := FieldInstanceType, p.InstanceType.Name
	switch ie.Key {
	case api.LabelZone:
		field, value = FieldZone, p.Zone
	case api.LabelCapacityType:
		field, value = FieldCapacityType, offering.CapacityType
	}
	return newError(ErrInvalid, field, value, "NodePool %s excludes it: it requires %s, the node would have %s",
		p.NodePool.Name, ie.Incoming, ie.Existing)
}

func requirementsOf(rs requirements.Requirements) []*requirements.Requirement {
	out := make([]*requirements.Requirement, 0, len(rs))
	for _, k := range rs.Keys() {
		out = append(out, rs[k])
	}
	return out
}

// checkZoneInRegion refuses a zone label of another region: Generate cannot see the instance type's
// offerings, but it knows the cluster's location.
func checkZoneInRegion(zone, location string) error {
	if zone == "" || zone == api.RegionalZone || location == "" {
		return nil
	}
	rest, ok := strings.CutPrefix(zone, location+"-")
	if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" {
		return newError(ErrInvalid, FieldZone, zone, "want %s-<n>, or 0 for a regional VM, in region %s", location, location)
	}
	return nil
}

// checkInputPlacement is Generate's share of CheckPlacement: what it can check without a catalogue.
func checkInputPlacement(in Input) error {
	if err := checkCapacityType(in.CapacityType); err != nil {
		return err
	}
	return checkZoneInRegion(in.Zone, in.Cluster.Location)
}
