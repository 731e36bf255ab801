package main

import (
	"context"
	"fmt"

	"github.com/napkit/napkit/pricing"
)

// livePrices fetches the region's VM and disk prices from the Retail Prices API, on top of the
// embedded snapshot (other regions, and anything the API does not list, keep the snapshot's). A
// failed or empty answer is an error: the user asked for live prices, and silently falling back
// would answer with others.
func livePrices(url, region string) (*pricing.Snapshot, error) {
	client, err := pricing.NewClient(pricing.ClientOptions{BaseURL: url})
	if err != nil {
		return nil, fmt.Errorf("--prices live: %w", err)
	}
	p, err := pricing.NewProvider(pricing.ProviderOptions{Client: client, Regions: []string{region}})
	if err != nil {
		return nil, fmt.Errorf("--prices live: %w", err)
	}
	if err := p.Refresh(context.Background()); err != nil {
		return nil, fmt.Errorf("--prices live (%s): %w", url, err)
	}
	return p.Snapshot(), nil
}
