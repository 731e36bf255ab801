package controller

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/pricing"
	"github.com/napkit/napkit/quota"
)

// CatalogueFunc returns the instance types a node class may use.
type CatalogueFunc = func(*api.AKSNodeClass) (*instancetype.Catalogue, error)

// NewCatalogue returns a Config.Catalogue on the embedded SKU list and prices of region: each
// node class gets its own build (disk size, pod limit and image family change capacities), and
// offerings the cache holds as unavailable are built unavailable, so the provisioner plans around
// them.
func NewCatalogue(region string, network api.ClusterNetwork, offerings *launch.UnavailableOfferings) (CatalogueFunc, error) {
	return NewLiveCatalogue(region, network, offerings, nil)
}

// NewLiveCatalogue is NewCatalogue priced from prices (the table the controller refreshes from
// the Retail Prices API, Upkeep.Prices) at every build; nil prices means the embedded snapshot.
func NewLiveCatalogue(region string, network api.ClusterNetwork, offerings *launch.UnavailableOfferings,
	prices *pricing.Provider) (CatalogueFunc, error) {
	skus, err := instancetype.LoadDefault(region)
	if err != nil {
		return nil, err
	}
	opts, err := instancetype.DefaultOptions(region, network)
	if err != nil {
		return nil, err
	}
	base, err := skus.Build(opts)
	if err != nil {
		return nil, err
	}
	opts.Unavailable = func(sku, zone, capacityType string) bool {
		p := launch.Placement{SKU: sku, Zone: zone, CapacityType: capacityType}
		if it, ok := base.Find(sku); ok && it.SKU != nil {
			p.Family, p.VCPUs = it.SKU.Family, int(it.SKU.VCPUs)
		}
		return offerings.IsUnavailable(p)
	}
	return func(class *api.AKSNodeClass) (*instancetype.Catalogue, error) {
		o := opts
		o.NodeClass = class
		if prices != nil {
			o.Prices, _ = prices.Region(region)
		}
		return skus.Build(o)
	}, nil
}

// catalogueCache keeps the last catalogue per node class: a build takes tens of milliseconds, and
// a catalogue changes only with the class's spec or with the unavailable offerings.
type catalogueCache struct {
	build     CatalogueFunc
	offerings *launch.UnavailableOfferings
	// pricesAt, when set, says when the live prices last changed, so catalogues are rebuilt.
	pricesAt func() time.Time
	// quota, when set, returns the vCPU quota table in force and its sequence number.
	quota   func() (*quota.Table, uint64)
	mu      sync.Mutex
	entries map[string]catalogueEntry
}

type catalogueEntry struct {
	key string
	cat *instancetype.Catalogue
}

func newCatalogueCache(build CatalogueFunc, offerings *launch.UnavailableOfferings) *catalogueCache {
	return &catalogueCache{build: build, offerings: offerings, entries: map[string]catalogueEntry{}}
}

func (cc *catalogueCache) get(class *api.AKSNodeClass) (*instancetype.Catalogue, error) {
	spec, err := json.Marshal(class.Spec)
	if err != nil {
		return nil, fmt.Errorf("AKSNodeClass %s: %w", class.Name, err)
	}
	var table *quota.Table
	var quotaSeq uint64
	if cc.quota != nil {
		table, quotaSeq = cc.quota()
	}
	var pricesAt time.Time
	if cc.pricesAt != nil {
		pricesAt = cc.pricesAt()
	}
	key := fmt.Sprintf("%s/%d/%d/%d", spec, cc.offerings.SeqNum(), quotaSeq, pricesAt.UnixNano())
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if e, ok := cc.entries[class.Name]; ok && e.key == key {
		return e.cat, nil
	}
	cat, err := cc.build(class)
	if err != nil {
		return nil, fmt.Errorf("catalogue for AKSNodeClass %s: %w", class.Name, err)
	}
	cat = quota.Apply(cat, table)
	cc.entries[class.Name] = catalogueEntry{key: key, cat: cat}
	return cat, nil
}
