package launch

import (
	"strings"
	"sync"
	"time"
)

// wholeFamily is the family threshold that blocks every size of a family.
const wholeFamily = -1

// Placement identifies one offering of one SKU for the unavailable-offerings
// cache. Family and VCPUs drive the family threshold rule.
type Placement struct {
	SKU          string
	Family       string
	VCPUs        int
	Zone         string
	CapacityType string
}

// Key is the per-offering cache key, "<capacityType>:<sku>:<zone>".
func (p Placement) Key() string { return OfferingKey(p.CapacityType, p.SKU, p.Zone) }

// OfferingKey is the per-offering cache key, "<capacityType>:<sku>:<zone>".
func OfferingKey(capacityType, sku, zone string) string {
	return capacityType + ":" + sku + ":" + zone
}

// familyKey is the per-family threshold key for one zone and capacity type.
func familyKey(family, zone, capacityType string) string {
	return strings.ToLower("skuFamily:" + family + ":" + zone + ":" + capacityType)
}

// threshold blocks every size of a family with at least vCPUs cores until expiry.
type threshold struct {
	vCPUs  int
	expiry time.Time
}

// UnavailableOfferings remembers, for a while, which offerings ARM refused, so
// launches and scheduling avoid them. Entries expire after their own TTL. It is
// safe for concurrent use; a nil cache holds nothing and ignores marks.
type UnavailableOfferings struct {
	clock     func() time.Time
	mu        sync.Mutex
	offerings map[string]time.Time
	families  map[string][]threshold
	spot      time.Time
	seq       uint64
}

// NewUnavailableOfferings returns an empty cache on clock (time.Now if nil).
func NewUnavailableOfferings(clock func() time.Time) *UnavailableOfferings {
	if clock == nil {
		clock = time.Now
	}
	return &UnavailableOfferings{
		clock:     clock,
		offerings: map[string]time.Time{},
		families:  map[string][]threshold{},
	}
}

// MarkUnavailable marks p unavailable for ttl. It also marks p's family in
// p's zone and capacity type unavailable for every size with at least p's
// vCPUs: a family that cannot fit this size cannot fit a bigger one either.
func (c *UnavailableOfferings) MarkUnavailable(p Placement, ttl time.Duration) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock()
	c.evict(now)
	expiry := now.Add(ttl)
	if !c.offerings[p.Key()].After(now) {
		c.seq++
	}
	c.offerings[p.Key()] = later(c.offerings[p.Key()], expiry)
	if p.Family != "" && p.VCPUs > 0 {
		c.addThreshold(familyKey(p.Family, p.Zone, p.CapacityType), threshold{p.VCPUs, expiry})
	}
}

// MarkFamilyUnavailable marks every size of family in zone and capacityType
// unavailable for ttl.
func (c *UnavailableOfferings) MarkFamilyUnavailable(family, zone, capacityType string, ttl time.Duration) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock()
	c.evict(now)
	c.addThreshold(familyKey(family, zone, capacityType), threshold{wholeFamily, now.Add(ttl)})
}

// MarkSpotUnavailable marks every spot offering unavailable for ttl (the
// subscription's low-priority core quota is spent).
func (c *UnavailableOfferings) MarkSpotUnavailable(ttl time.Duration) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock()
	c.evict(now)
	if !c.spot.After(now) {
		c.seq++
	}
	c.spot = later(c.spot, now.Add(ttl))
}

// IsUnavailable reports whether p is blocked by its own entry, its family's
// threshold or the global spot entry.
func (c *UnavailableOfferings) IsUnavailable(p Placement) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock()
	if p.CapacityType == CapacityTypeSpot && c.spot.After(now) {
		return true
	}
	if c.offerings[p.Key()].After(now) {
		return true
	}
	for _, t := range c.families[familyKey(p.Family, p.Zone, p.CapacityType)] {
		if t.expiry.After(now) && (t.vCPUs == wholeFamily || p.VCPUs >= t.vCPUs) {
			return true
		}
	}
	return false
}

// SeqNum changes whenever the set of unavailable offerings materially
// changes, including by expiry, so dependent caches can key off it.
func (c *UnavailableOfferings) SeqNum() uint64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evict(c.clock())
	return c.seq
}

// addThreshold adds t unless an entry at least as strict and as long-lived
// exists, drops entries t supersedes, and bumps seq when the family's
// effective threshold tightens.
func (c *UnavailableOfferings) addThreshold(key string, t threshold) {
	current := c.families[key]
	kept := current[:0:0]
	for _, old := range current {
		if old.vCPUs <= t.vCPUs && !old.expiry.Before(t.expiry) {
			return
		}
		if old.vCPUs < t.vCPUs || old.expiry.After(t.expiry) {
			kept = append(kept, old)
		}
	}
	if len(current) == 0 || t.vCPUs < minThreshold(current) {
		c.seq++
	}
	c.families[key] = append(kept, t)
}

// evict drops expired entries; it bumps seq once if it dropped any.
func (c *UnavailableOfferings) evict(now time.Time) {
	evicted := false
	for k, expiry := range c.offerings {
		if !expiry.After(now) {
			delete(c.offerings, k)
			evicted = true
		}
	}
	for k, ts := range c.families {
		live := ts[:0:0]
		for _, t := range ts {
			if t.expiry.After(now) {
				live = append(live, t)
			}
		}
		evicted = evicted || len(live) != len(ts)
		if len(live) == 0 {
			delete(c.families, k)
		} else {
			c.families[k] = live
		}
	}
	if !c.spot.IsZero() && !c.spot.After(now) {
		c.spot = time.Time{}
		evicted = true
	}
	if evicted {
		c.seq++
	}
}

func minThreshold(ts []threshold) int {
	m := ts[0].vCPUs
	for _, t := range ts[1:] {
		m = min(m, t.vCPUs)
	}
	return m
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
