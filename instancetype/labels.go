package instancetype

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/requirements"
)

// reqCache hands out requirements built once per Build and shared by every instance type and offering
// that uses them: most label values (architecture, region, booleans, vCPU counts, zones) repeat across
// hundreds of types. Sharing is safe because a Requirement is immutable. Keys are structs, so a cache
// hit costs no allocation.
type reqCache struct {
	values    map[reqKey]*requirements.Requirement
	counts    map[countKey]*requirements.Requirement
	unions    map[unionKey][]*requirements.Requirement
	offerings map[offeringKey]requirements.Requirements
	zoneBits  map[string]uint // zone label → bit in unionKey.zones; "0" is bit 0
}

type reqKey struct{ key, id string }

type countKey struct {
	key string
	n   int64
}

// unionKey identifies what a set of available offerings adds up to: the zones (as bits) and whether
// any is spot, on-demand, or has Ultra SSD.
type unionKey struct {
	zones                 uint64
	spot, onDemand, ultra bool
}

type offeringKey struct {
	zone, capacityType string
	ultra              bool
}

func newReqCache() reqCache {
	return reqCache{
		values:    make(map[reqKey]*requirements.Requirement, 256),
		counts:    make(map[countKey]*requirements.Requirement, 256),
		unions:    make(map[unionKey][]*requirements.Requirement, 16),
		offerings: make(map[offeringKey]requirements.Requirements, 32),
		zoneBits:  map[string]uint{api.RegionalZone: 0},
	}
}

// in returns "key In value".
func (c reqCache) in(key, value string) *requirements.Requirement {
	return c.inSet(key, value, value)
}

// inSet returns "key In values"; id names the value set uniquely for key.
func (c reqCache) inSet(key, id string, values ...string) *requirements.Requirement {
	k := reqKey{key, id}
	if r, ok := c.values[k]; ok {
		return r
	}
	r := requirements.NewRequirement(key, corev1.NodeSelectorOpIn, values...)
	c.values[k] = r
	return r
}

// count returns "key In n" for a numeric label, without formatting n on a cache hit.
func (c reqCache) count(key string, n int64) *requirements.Requirement {
	k := countKey{key, n}
	if r, ok := c.counts[k]; ok {
		return r
	}
	r := requirements.NewRequirement(key, corev1.NodeSelectorOpIn, strconv.FormatInt(n, 10))
	c.counts[k] = r
	return r
}

func (c reqCache) doesNotExist(key string) *requirements.Requirement {
	k := reqKey{key, "\x00DoesNotExist"}
	if r, ok := c.values[k]; ok {
		return r
	}
	r := requirements.NewRequirement(key, corev1.NodeSelectorOpDoesNotExist)
	c.values[k] = r
	return r
}

// instanceRequirements returns every well-known label a node of c gets (the set Karpenter's Azure
// provider defines), with zone, capacity type, placement scope, priority and Ultra SSD the union of
// the available offerings.
func (b *builder) instanceRequirements(c *candidate, offerings Offerings,
	maxEphemeralGB int64) requirements.Requirements {
	rs := make(requirements.Requirements, labelCount(c, maxEphemeralGB))
	add := func(r *requirements.Requirement) { rs[r.Key] = r }
	b.addSKULabels(add, c, maxEphemeralGB)
	b.addGPULabels(add, c)
	b.addNodeClassLabels(add)
	for _, r := range b.unionRequirements(offerings) {
		add(r)
	}
	return rs
}

// labelCount is the number of labels instanceRequirements adds, so the map is sized once: a size hint
// just above a power of two would double the table.
func labelCount(c *candidate, maxEphemeralGB int64) int {
	n := 25 // every type: 15 SKU labels, the GPU count, 3 node-class and 6 offering-union labels
	if maxEphemeralGB > 0 {
		n++
	}
	if c.gpu != nil {
		n += 2
	}
	return n
}

func (b *builder) addSKULabels(add func(*requirements.Requirement), c *candidate, maxEphemeralGB int64) {
	sku, cache := c.sku, b.reqs
	memMiB := int64(sku.MemoryGiB * 1024)
	add(requirements.NewRequirement(api.LabelInstanceType, corev1.NodeSelectorOpIn, sku.Name))
	add(requirements.NewRequirement(api.LabelSKUName, corev1.NodeSelectorOpIn, sku.Name))
	add(cache.in(api.LabelArch, sku.Arch))
	add(cache.in(api.LabelOS, api.OSLinux))
	add(cache.in(api.LabelRegion, b.region))
	add(cache.in(api.LabelSKUFamily, c.size.Family))
	add(cache.in(api.LabelSKUSeries, c.size.Series()))
	if v, ok := versionNumber(c.size.Version); ok {
		add(cache.in(api.LabelSKUVersion, v))
	}
	add(cache.count(api.LabelSKUCPU, sku.VCPUs))
	add(cache.count(api.LabelAKSSKUCPU, sku.VCPUs))
	add(cache.count(api.LabelSKUMemory, memMiB))
	add(cache.count(api.LabelAKSSKUMemory, memMiB))
	add(cache.in(api.LabelSKUAcceleratedNetworking, strconv.FormatBool(sku.AcceleratedNetworking)))
	add(cache.in(api.LabelSKUPremiumStorage, strconv.FormatBool(sku.PremiumIO)))
	if maxEphemeralGB > 0 {
		add(cache.count(api.LabelSKUEphemeralOSMaxSize, maxEphemeralGB))
	}
	gen1, gen2 := sku.HyperVGenerations.Has("1"), sku.HyperVGenerations.Has("2")
	switch {
	case gen1 && gen2:
		add(cache.inSet(api.LabelSKUHyperVGeneration, "1,2", "1", "2"))
	case gen2:
		add(cache.in(api.LabelSKUHyperVGeneration, "2"))
	default:
		add(cache.in(api.LabelSKUHyperVGeneration, "1"))
	}
}

func (b *builder) addGPULabels(add func(*requirements.Requirement), c *candidate) {
	if c.gpu == nil {
		add(b.reqs.count(api.LabelSKUGPUCount, 0))
		return
	}
	add(b.reqs.count(api.LabelSKUGPUCount, c.sku.GPUs))
	add(b.reqs.in(api.LabelSKUGPUManufacturer, c.gpu.Manufacturer))
	if c.size.AcceleratorType != "" {
		add(b.reqs.in(api.LabelSKUGPUName, c.size.AcceleratorType))
	}
}

func (b *builder) addNodeClassLabels(add func(*requirements.Requirement)) {
	add(b.reqs.inSet(api.LabelAKSMode, "system,user", "system", "user"))
	add(b.reqs.in(api.LabelAKSOSSKU, b.class.osSKU))
	if b.class.fips {
		add(b.reqs.in(api.LabelAKSFIPSEnabled, "true"))
	} else {
		add(b.reqs.doesNotExist(api.LabelAKSFIPSEnabled))
	}
}

// unionRequirements returns the zone, capacity-type, priority, placement-scope and Ultra SSD
// requirements of the available offerings, built once per distinct union.
func (b *builder) unionRequirements(offerings Offerings) []*requirements.Requirement {
	key, cacheable := b.unionKey(offerings)
	if reqs, ok := b.reqs.unions[key]; ok && cacheable {
		return reqs
	}
	var zones []string
	regional, zonal := false, false
	for _, o := range offerings {
		if o.Available && !slices.Contains(zones, o.Zone) {
			zones = append(zones, o.Zone)
			regional, zonal = regional || o.Regional(), zonal || !o.Regional()
		}
	}
	anyAvailable := len(zones) > 0
	priorities := pick(valueIf{api.PriorityRegular, key.onDemand}, valueIf{api.PrioritySpot, key.spot})
	reqs := []*requirements.Requirement{
		requirements.NewRequirement(api.LabelZone, corev1.NodeSelectorOpIn, zones...),
		requirements.NewRequirement(api.LabelCapacityType, corev1.NodeSelectorOpIn,
			pick(valueIf{api.CapacityTypeOnDemand, key.onDemand}, valueIf{api.CapacityTypeSpot, key.spot})...),
		requirements.NewRequirement(api.LabelAKSScaleSetPriority, corev1.NodeSelectorOpIn, priorities...),
		requirements.NewRequirement(api.LabelAKSPriority, corev1.NodeSelectorOpIn, priorities...),
		requirements.NewRequirement(api.LabelPlacementScope, corev1.NodeSelectorOpIn,
			pick(valueIf{api.PlacementScopeRegional, regional}, valueIf{api.PlacementScopeZonal, zonal})...),
		requirements.NewRequirement(api.LabelSKUUltraSSD, corev1.NodeSelectorOpIn,
			pick(valueIf{"false", anyAvailable}, valueIf{"true", key.ultra})...),
	}
	if cacheable {
		b.reqs.unions[key] = reqs
	}
	return reqs
}

// unionKey summarises the available offerings; it reports false in the (never seen) case of more
// zones than bits.
func (b *builder) unionKey(offerings Offerings) (unionKey, bool) {
	var k unionKey
	for _, o := range offerings {
		if !o.Available {
			continue
		}
		bit, ok := b.reqs.zoneBits[o.Zone]
		if !ok {
			bit = uint(len(b.reqs.zoneBits))
			b.reqs.zoneBits[o.Zone] = bit
		}
		if bit >= 64 {
			return k, false
		}
		k.zones |= 1 << bit
		k.spot = k.spot || o.CapacityType == api.CapacityTypeSpot
		k.onDemand = k.onDemand || o.CapacityType == api.CapacityTypeOnDemand
		k.ultra = k.ultra || o.UltraSSD
	}
	return k, true
}

// valueIf is a label value and whether it applies.
type valueIf struct {
	value string
	set   bool
}

// pick returns the values whose flag is set, in the given (sorted) order.
func pick(flags ...valueIf) []string {
	out := make([]string, 0, len(flags))
	for _, f := range flags {
		if f.set {
			out = append(out, f.value)
		}
	}
	return out
}

// offeringRequirements returns the labels of one offering: zone, capacity type, placement scope and
// the AKS priority labels (single values), and Ultra SSD (["false"] or ["false", "true"]). Offerings
// with the same zone, capacity type and Ultra SSD support share one Requirements map.
func (b *builder) offeringRequirements(o Offering) requirements.Requirements {
	key := offeringKey{o.Zone, o.CapacityType, o.UltraSSD}
	if rs, ok := b.reqs.offerings[key]; ok {
		return rs
	}
	priority := api.PriorityRegular
	if o.CapacityType == api.CapacityTypeSpot {
		priority = api.PrioritySpot
	}
	ultra := b.reqs.in(api.LabelSKUUltraSSD, "false")
	if o.UltraSSD {
		ultra = b.reqs.inSet(api.LabelSKUUltraSSD, "false,true", "false", "true")
	}
	rs := requirements.New(
		b.reqs.in(api.LabelZone, o.Zone),
		b.reqs.in(api.LabelCapacityType, o.CapacityType),
		b.reqs.in(api.LabelPlacementScope, o.PlacementScope()),
		b.reqs.in(api.LabelAKSScaleSetPriority, priority),
		b.reqs.in(api.LabelAKSPriority, priority),
		ultra,
	)
	b.reqs.offerings[key] = rs
	return rs
}
