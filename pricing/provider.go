package pricing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// ProviderOptions configures a Provider.
type ProviderOptions struct {
	// Snapshot holds the prices to start from. Default: DefaultSnapshot().
	Snapshot *Snapshot
	// Client is the live price source. Nil makes an offline provider, whose Refresh returns
	// ErrNoClient.
	Client *Client
	// Regions are the regions Refresh fetches, usually just the cluster's. Required with a Client.
	Regions []string
	// Clock stamps refreshes. Default time.Now.
	Clock func() time.Time
}

// Provider serves prices that start from a snapshot and are refreshed from the Retail Prices API.
// It is safe for concurrent use: lookups may run while Refresh does.
//
// A refresh never makes things worse: a region whose fetch fails or returns no prices keeps the
// prices it had. A region whose fetch succeeds has its whole price list replaced by the live one, so
// a SKU the API no longer lists loses its price: the live answer is the authority on what is sold.
type Provider struct {
	mu      sync.RWMutex
	snap    *Snapshot // replaced, never changed, so a RegionPrices handed out stays consistent
	updated time.Time

	// refreshing is a one-slot semaphore: Refreshes run one at a time, so an older answer never
	// overwrites a newer one, and waiting for the slot still honours the caller's context.
	refreshing chan struct{}
	client     *Client
	regions    []string
	clock      func() time.Time
}

// NewProvider checks opts, fills in defaults and returns a provider.
func NewProvider(opts ProviderOptions) (*Provider, error) {
	p := &Provider{snap: opts.Snapshot, client: opts.Client, clock: opts.Clock, refreshing: make(chan struct{}, 1)}
	if p.snap == nil {
		snap, err := DefaultSnapshot()
		if err != nil {
			return nil, err
		}
		p.snap = snap
	}
	if p.clock == nil {
		p.clock = time.Now
	}
	regions, err := refreshRegions(opts)
	if err != nil {
		return nil, err
	}
	p.regions = regions
	return p, nil
}

// refreshRegions checks and normalises the regions to refresh, sorted and without repeats.
func refreshRegions(opts ProviderOptions) ([]string, error) {
	if opts.Client != nil && len(opts.Regions) == 0 {
		return nil, errors.New("pricing: ProviderOptions.Regions is empty; a Client needs regions to fetch")
	}
	regions := make([]string, 0, len(opts.Regions))
	for _, r := range opts.Regions {
		name, err := regionName(r)
		if err != nil {
			return nil, err
		}
		regions = append(regions, name)
	}
	slices.Sort(regions)
	return slices.Compact(regions), nil
}

// Refresh fetches every configured region's VM and managed-disk prices and swaps in each that
// succeeded. The
// errors of the others are joined into the result; their previous prices stay. A fetch that
// succeeds with no prices counts as failed, with ErrNoPrices. Cancelling ctx stops the refresh
// before the next region.
func (p *Provider) Refresh(ctx context.Context) error {
	if p.client == nil {
		return fmt.Errorf("pricing: refresh: %w", ErrNoClient)
	}
	select {
	case p.refreshing <- struct{}{}:
		defer func() { <-p.refreshing }()
	case <-ctx.Done():
		return fmt.Errorf("pricing: refresh: %w", ctx.Err())
	}
	var errs []error
	for _, region := range p.regions {
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("pricing: refresh stopped before region %s: %w", region, err))
			break
		}
		errs = append(errs, p.refreshRegion(ctx, region))
	}
	return errors.Join(errs...)
}

// refreshRegion refreshes a region's VM prices, then its managed-disk prices; each half that fails
// keeps its previous prices and reports why.
func (p *Provider) refreshRegion(ctx context.Context, region string) error {
	vmErr, diskErr := p.refreshVMs(ctx, region), p.refreshDisks(ctx, region)
	if vmErr == nil || diskErr == nil {
		p.mu.Lock()
		p.updated = p.clock()
		p.mu.Unlock()
	}
	return errors.Join(vmErr, diskErr)
}

func (p *Provider) refreshVMs(ctx context.Context, region string) error {
	fresh, err := p.client.Fetch(ctx, region)
	if err != nil {
		return err
	}
	if len(fresh) == 0 {
		return fmt.Errorf("pricing: region %s: %w", region, ErrNoPrices)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	prev, _ := p.snap.table(region)
	p.snap = p.snap.withRegion(region, keepSpot(fresh, prev))
	return nil
}

func (p *Provider) refreshDisks(ctx context.Context, region string) error {
	fresh, err := p.client.FetchDisks(ctx, region)
	if err != nil {
		return fmt.Errorf("pricing: disk prices: %w", err)
	}
	if len(fresh) == 0 {
		return fmt.Errorf("pricing: region %s disk prices: %w", region, ErrNoPrices)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.snap = p.snap.withDisks(region, fresh)
	return nil
}

// keepSpot carries known spot prices over from prev when fresh has none at all, and returns fresh,
// which it may change. An answer without a single spot meter means the spot side of the fetch came
// back empty, not that spot stopped being sold; Karpenter's Azure provider likewise keeps its spot
// prices when an update brings none.
func keepSpot(fresh, prev map[string]Price) map[string]Price {
	for _, p := range fresh {
		if p.SpotKnown {
			return fresh
		}
	}
	for sku, p := range fresh {
		if old, ok := prev[sku]; ok && old.SpotKnown {
			p.Spot, p.SpotKnown = old.Spot, true
			fresh[sku] = p
		}
	}
	return fresh
}

// Region returns the current prices of region, falling back as Snapshot.Region does. The result is
// not changed by later refreshes.
func (p *Provider) Region(region string) (RegionPrices, Note) {
	return p.Snapshot().Region(region)
}

// Snapshot returns the current prices of every region, for callers that need one consistent view
// across regions.
func (p *Provider) Snapshot() *Snapshot {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.snap
}

// LastUpdated returns when a refresh last swapped in prices for some region, by the provider's
// clock; the zero time if none has.
func (p *Provider) LastUpdated() time.Time {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.updated
}
