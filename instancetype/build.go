package instancetype

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/kubeletconfig"
	"github.com/napkit/napkit/pricing"
)

// Catalogue is every instance type one region offers one AKSNodeClass, and every SKU left out, with
// the reason.
type Catalogue struct {
	Region string `json:"region"`
	// InstanceTypes are sorted by their cheapest available offering, then name; sizes outside
	// Options.KnownSKUs come last.
	InstanceTypes []*InstanceType `json:"instanceTypes"`
	// Excluded are sorted by name.
	Excluded []Excluded `json:"excluded"`
	// Notes say what the prices rest on that a reader could not guess: a fallback to another
	// region's disk prices, managed disks without a price, sizes whose disk capabilities are unknown.
	Notes []string `json:"notes,omitempty"`
}

// Find returns the instance type called name, if the catalogue has it.
func (c *Catalogue) Find(name string) (*InstanceType, bool) {
	for _, it := range c.InstanceTypes {
		if it.Name == name {
			return it, true
		}
	}
	return nil, false
}

// Lists reports whether the region's SKU list had a size called name, usable (InstanceTypes) or
// excluded. A node labelled with a size it does not list cannot be priced or replaced: the name is a
// typo, or the node is from another region or catalogue.
func (c *Catalogue) Lists(name string) bool {
	if _, ok := c.Find(name); ok {
		return true
	}
	return slices.ContainsFunc(c.Excluded, func(e Excluded) bool { return e.Name == name })
}

// Build turns the SKUs of opts.Region into the catalogue: it drops the SKUs no node should use
// (recording why), and gives each remaining one its capacity, overhead, allocatable, labels and priced
// offerings. It fails only on invalid options (errors wrap ErrBadOptions); a SKU that does not pass
// SKU.Validate, or a nil one, is excluded as ExcludedBadSKU. skus are not modified.
//
// ReadSKUs reads ARM's JSON into SKUs, and package azuresku converts the Azure SDK's records.
func Build(skus []*SKU, opts Options) (*Catalogue, error) { return buildCatalogue(skus, nil, opts) }

// buildCatalogue is Build with records a reader could not turn into SKUs, listed as they are unless their
// name is one AKS or Karpenter restricts (the name check comes before reading, as for every SKU).
func buildCatalogue(skus []*SKU, unreadable []Excluded, opts Options) (*Catalogue, error) {
	s, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	b := &builder{
		settings:     s,
		opts:         opts,
		rules:        append(slices.Clone(globalRules), classRules(s.class)...),
		reqs:         newReqCache(),
		reservations: make(map[reservationKey]kubeletconfig.Reservation, 256),
		resources:    make(map[resourceKey]resourceLists, 256),
		zoneLabels:   make(map[string]string, 4),
		admitted:     make(map[string]bool, len(skus)),
		types:        make([]*InstanceType, 0, len(skus)),
	}
	for _, ex := range unreadable {
		if kind, reason, ok := restrictedName(ex.Name); ok {
			ex.Kind, ex.Reason = kind, reason
		}
		b.excluded = append(b.excluded, ex)
	}
	for i, sku := range skus {
		b.add(i, sku)
	}
	return b.catalogue(), nil
}

// builder holds one Build's state; its caches are what make a 1,300-SKU build take milliseconds.
type builder struct {
	settings
	opts         Options
	rules        []rule
	reqs         reqCache
	reservations map[reservationKey]kubeletconfig.Reservation
	resources    map[resourceKey]resourceLists
	zoneLabels   map[string]string // ARM zone "1" → label "eastus-1"
	admitted     map[string]bool
	types        []*InstanceType
	excluded     []Excluded
}

type reservationKey struct {
	vcpus     int64
	memoryGiB float64
}

func (b *builder) add(i int, sku *SKU) {
	c, ex := b.admit(i, sku)
	if ex != nil {
		b.excluded = append(b.excluded, *ex)
		return
	}
	it, err := b.instanceType(c)
	if err != nil {
		b.excluded = append(b.excluded, Excluded{Name: c.sku.Name, Kind: ExcludedBadSKU, Reason: exclusionReason(err)})
		return
	}
	b.types = append(b.types, it)
}

// admit checks one SKU and runs every exclusion rule; it returns either a candidate or why not.
func (b *builder) admit(i int, sku *SKU) (*candidate, *Excluded) {
	name := ""
	if sku != nil {
		name = sku.Name
	}
	exclude := func(kind ExclusionKind, reason string) (*candidate, *Excluded) {
		return nil, &Excluded{Name: entryName(name, i), Kind: kind, Reason: reason}
	}
	if kind, reason, ok := restrictedName(name); ok {
		return exclude(kind, reason)
	}
	if err := sku.Validate(); err != nil {
		return exclude(ExcludedBadSKU, exclusionReason(err))
	}
	if sku.ResourceType != "" && !strings.EqualFold(sku.ResourceType, "virtualMachines") {
		return exclude(ExcludedNotVirtualMachine, "resourceType "+sku.ResourceType)
	}
	size, err := ParseSize(sku.Size)
	if err != nil {
		return exclude(ExcludedBadSize, exclusionReason(err))
	}
	c := &candidate{sku: sku, size: size}
	if g, ok := LookupGPU(sku.Name); ok {
		c.gpu = &g
	}
	for _, r := range b.rules {
		if r.fails(c) {
			return exclude(r.kind, r.why(c))
		}
	}
	if b.admitted[name] {
		return exclude(ExcludedDuplicate, "an earlier record has the same name")
	}
	b.admitted[name] = true
	return c, nil
}

// restrictedName says whether AKS or Karpenter keeps the size called name off nodes.
func restrictedName(name string) (ExclusionKind, string, bool) {
	switch {
	case aksRestricted.Has(name):
		return ExcludedAKSRestricted, "AKS does not allow this size for nodes", true
	case karpenterRestricted.Has(name):
		return ExcludedKarpenterRestricted, "Karpenter on Azure does not use this size", true
	}
	return "", "", false
}

func (b *builder) instanceType(c *candidate) (*InstanceType, error) {
	res, err := b.reserve(c.sku)
	if err != nil {
		return nil, err
	}
	disk := ChooseOSDisk(c.sku, b.capacity.osDiskSizeGB).priced(b.opts.Prices)
	offerings := b.offerings(c, disk.PricePerHour)
	maxEphemeralGB, _ := FindMaxEphemeral(c.sku)
	overhead := Overhead{res.KubeReserved, res.SystemReserved, res.EvictionThreshold}
	lists := b.resourceLists(c, overhead)
	it := &InstanceType{
		Name:            c.sku.Name,
		Offerings:       offerings,
		Capacity:        lists.capacity,
		Overhead:        overhead,
		SKU:             c.sku,
		EphemeralOSDisk: disk,
		allocatable:     lists.allocatable,
	}
	it.Requirements = b.instanceRequirements(c, offerings, maxEphemeralGB)
	return it, nil
}

// resourceKey is what an instance type's capacity and allocatable depend on besides the build's
// options: the overhead is reserve's, which depends on the vCPUs and memory too.
type resourceKey struct {
	vcpus     int64
	memoryGiB float64
	gpu       corev1.ResourceName
	gpus      int64
}

// resourceLists are an instance type's Capacity and allocatable lists.
type resourceLists struct{ capacity, allocatable corev1.ResourceList }

// resourceLists returns c's capacity and allocatable, computed once per resourceKey and shared by
// the instance types of that key, as their overhead lists are (sizes of several series and
// versions have the same vCPUs and memory). Why: two maps per type were a third of what a build
// allocated, in fresh memory in a new process, and pointers the collector marks after.
func (b *builder) resourceLists(c *candidate, overhead Overhead) resourceLists {
	key := resourceKey{vcpus: c.sku.VCPUs, memoryGiB: c.sku.MemoryGiB}
	if c.gpu != nil && c.sku.GPUs > 0 {
		key.gpu, key.gpus = c.gpu.Resource(), c.sku.GPUs
	}
	if lists, ok := b.resources[key]; ok {
		return lists
	}
	capacity := computeCapacity(c, b.capacity)
	lists := resourceLists{capacity: capacity, allocatable: allocatable(capacity, overhead)}
	b.resources[key] = lists
	return lists
}

// reserve returns the kubelet reservation of sku, computed once per (vCPUs, memory): sizes of
// different series share them. The lists are shared between those instance types.
func (b *builder) reserve(sku *SKU) (kubeletconfig.Reservation, error) {
	key := reservationKey{sku.VCPUs, sku.MemoryGiB}
	if r, ok := b.reservations[key]; ok {
		return r, nil
	}
	r, err := kubeletconfig.Reserve(kubeletconfig.ReservationInput{
		VCPUs:     sku.VCPUs,
		MemoryMiB: sku.MemoryGiB * 1024,
		MaxPods:   b.capacity.maxPods,
		Policy:    b.policy,
	})
	if err != nil {
		return r, fmt.Errorf("reservation: %w", err)
	}
	b.reservations[key] = r
	return r, nil
}

// offerings returns every zone (plus the regional "0") × capacity type of c, priced at the VM's price
// plus diskPrice (the managed OS disk's hourly price, the same for spot and on-demand), in
// compareOfferings order. They are generated in that order rather than sorted: every offering of one
// capacity type has the same price, so the cheaper type (spot on a tie) comes first, and within it the
// zonal offerings in zone order (c.sku.Zones is sorted) come before the regional one.
func (b *builder) offerings(c *candidate, diskPrice float64) Offerings {
	sku := c.sku
	onDemand, spot := b.prices(sku.Name)
	types := []string{api.CapacityTypeOnDemand}
	switch {
	case sku.LowPriorityCapable && spot <= onDemand:
		types = []string{api.CapacityTypeSpot, api.CapacityTypeOnDemand}
	case sku.LowPriorityCapable:
		types = []string{api.CapacityTypeOnDemand, api.CapacityTypeSpot}
	}
	out := make(Offerings, 0, (len(sku.Zones)+1)*len(types))
	for _, ct := range types {
		price := onDemand
		if ct == api.CapacityTypeSpot {
			price = spot
		}
		for i := 0; i <= len(sku.Zones); i++ {
			zone, ultra := api.RegionalZone, sku.UltraSSDAvailable
			if i < len(sku.Zones) {
				zone, ultra = b.zoneLabel(sku.Zones[i]), slices.Contains(sku.UltraSSDZones, sku.Zones[i])
			}
			o := Offering{Zone: zone, CapacityType: ct, Price: fullPrice(price, diskPrice), VMPrice: price,
				DiskPrice: diskPrice, UltraSSD: ultra}
			o.Available = b.opts.Unavailable == nil || !b.opts.Unavailable(sku.Name, zone, ct)
			o.Requirements = b.offeringRequirements(o)
			out = append(out, o)
		}
	}
	return out
}

// fullPrice is the node's price: the VM's plus its OS disk's, except that an unknown VM price stays
// pricing.MissingPrice (a sentinel, not a figure to add to).
func fullPrice(vm, disk float64) float64 {
	if vm >= pricing.MissingPrice {
		return vm
	}
	return roundPrice(vm + disk)
}

// roundPrice keeps a price to 1e-9 USD, so that a sum of two prices prints as people write it
// (0.0391, not 0.039099999999999996) and never depends on rounding noise.
func roundPrice(v float64) float64 { return math.Round(v*1e9) / 1e9 }

// prices returns the on-demand and spot price of a SKU; MissingPrice for both when the size is
// unknown or unpriced.
func (b *builder) prices(name string) (onDemand, spot float64) {
	if b.opts.KnownSKUs != nil && !b.opts.KnownSKUs[name] {
		return pricing.MissingPrice, pricing.MissingPrice
	}
	p, ok := b.opts.Prices.Lookup(name)
	if !ok {
		return pricing.MissingPrice, pricing.MissingPrice
	}
	return p.OnDemand, p.Spot
}

func (b *builder) zoneLabel(zone string) string {
	label, ok := b.zoneLabels[zone]
	if !ok {
		label = b.region + "-" + zone
		b.zoneLabels[zone] = label
	}
	return label
}

// catalogue sorts the results: instance types by (unknown last, cheapest available price, name),
// exclusions by (name, kind, reason).
func (b *builder) catalogue() *Catalogue {
	type ranked struct {
		it      *InstanceType
		unknown bool
		price   float64
	}
	rank := make([]ranked, len(b.types))
	for i, it := range b.types {
		price := math.Inf(1)
		if o, ok := it.Offerings.Cheapest(); ok {
			price = o.Price
		}
		rank[i] = ranked{it, b.opts.KnownSKUs != nil && !b.opts.KnownSKUs[it.Name], price}
	}
	slices.SortFunc(rank, func(x, y ranked) int {
		if x.unknown != y.unknown {
			if x.unknown {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(x.price, y.price), cmp.Compare(x.it.Name, y.it.Name))
	})
	types := make([]*InstanceType, len(rank))
	for i, r := range rank {
		types[i] = r.it
	}
	excluded := slices.Clone(b.excluded)
	slices.SortFunc(excluded, func(x, y Excluded) int {
		return cmp.Or(cmp.Compare(x.Name, y.Name), cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Reason, y.Reason))
	})
	if excluded == nil {
		excluded = []Excluded{}
	}
	return &Catalogue{Region: b.region, InstanceTypes: types, Excluded: excluded, Notes: b.notes(types)}
}

// notes explains the OS disk prices of types; see Catalogue.Notes.
func (b *builder) notes(types []*InstanceType) []string {
	var notes []string
	if n := b.opts.Prices.DiskNote(); n != "" {
		notes = append(notes, n)
	}
	var unknown, unpriced int
	unverified := map[string]int{} // tier → instance types
	for _, it := range types {
		if d := it.EphemeralOSDisk; d.PriceUnverified {
			unverified[d.StorageAccountType+" "+d.Tier]++
		}
		if !it.EphemeralOSDisk.CapabilitiesKnown {
			unknown++
		}
		if !it.EphemeralOSDisk.PriceKnown {
			unpriced++
		}
	}
	if len(unverified) > 0 {
		notes = append(notes, unverifiedNote(unverified, len(types), b.opts.Prices.DiskRegion()))
	}
	if unknown > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d instance types have no disk capabilities in their SKU records "+
			"(ephemeral OS disk support, cache and temp disk sizes): they are priced with a managed OS disk, "+
			"which costs more than the ephemeral disk Azure may allow them", unknown, len(types)))
	}
	if unpriced > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d instance types have a managed OS disk of %d GB with no price "+
			"in the region's disk prices: their disk is priced at 0", unpriced, len(types), b.capacity.osDiskSizeGB))
	}
	return notes
}

// unverifiedNote names the disk tiers priced from figures not checked against a source, and how
// many instance types use each.
func unverifiedNote(byTier map[string]int, total int, region string) string {
	parts := make([]string, 0, len(byTier))
	n := 0
	for _, tier := range slices.Sorted(maps.Keys(byTier)) {
		parts = append(parts, fmt.Sprintf("%s (%d)", tier, byTier[tier]))
		n += byTier[tier]
	}
	return fmt.Sprintf("%d of %d instance types have a managed OS disk priced from %s disk prices not verified "+
		"against a source (priceUnverified; the embedded table's verified column): %s; --prices live fetches real ones",
		n, total, region, strings.Join(parts, ", "))
}
