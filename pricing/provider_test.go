package pricing

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock returns successive instants an hour apart, starting at start.
func fakeClock(start time.Time) func() time.Time {
	var mu sync.Mutex
	next := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now := next
		next = next.Add(time.Hour)
		return now
	}
}

// t0Unix is the first instant, in Unix seconds, that the test providers' clock gives.
const t0Unix = 1_795_000_000

func newTestProvider(t *testing.T, api *fakeAPI, regions ...string) *Provider {
	t.Helper()
	return newTestProviderTimeout(t, api, 2*time.Second, regions...)
}

func newTestProviderTimeout(t *testing.T, api *fakeAPI, timeout time.Duration, regions ...string) *Provider {
	t.Helper()
	p, err := NewProvider(ProviderOptions{
		Snapshot: testSnapshot(t),
		Client:   api.client(t, ClientOptions{Timeout: timeout}),
		Regions:  regions,
		Clock:    fakeClock(time.Unix(t0Unix, 0)),
	})
	require.NoError(t, err)
	return p
}

func lookup(t *testing.T, p *Provider, region, sku string) Price {
	t.Helper()
	prices, note := p.Region(region)
	require.Empty(t, note.Message)
	price, ok := prices.Lookup(sku)
	require.True(t, ok, "%s %s", region, sku)
	return price
}

func TestRefreshReplacesPrices(t *testing.T) {
	api := newFakeAPI(t, map[string][]fakePage{"eastus": threePages()})
	p := newTestProvider(t, api, "eastus")
	before, _ := p.Region("eastus")
	assert.True(t, p.LastUpdated().IsZero())

	require.NoError(t, p.Refresh(context.Background()))

	assert.Equal(t, time.Unix(t0Unix, 0), p.LastUpdated())
	assert.Equal(t, Price{OnDemand: 0.096, Spot: 0.0106, SpotKnown: true}, lookup(t, p, "eastus", "Standard_D2s_v3"))
	assert.Equal(t, Price{OnDemand: 0.192, Spot: 0.02112, SpotKnown: true}, lookup(t, p, "eastus", "Standard_D4s_v5"),
		"a live spot price replaces the on-demand fallback")
	now, _ := p.Region("eastus")
	_, ok := now.Lookup("Standard_B1s")
	assert.False(t, ok, "a SKU the live answer no longer lists is dropped")
	assert.Equal(t, Price{OnDemand: 0.1, Spot: 0.1}, lookup(t, p, "westus2", "Standard_D2s_v3"), "other regions untouched")

	old, ok := before.Lookup("Standard_D2s_v3")
	require.True(t, ok)
	assert.Equal(t, Price{OnDemand: 0.096, Spot: 0.01056, SpotKnown: true}, old, "a RegionPrices handed out earlier does not change")
}

func TestRefreshKeepsPricesOnFailure(t *testing.T) {
	good := map[string][]fakePage{"eastus": threePages()}
	tests := []struct {
		name   string
		pages  map[string][]fakePage
		check  func(t *testing.T, err error)
		cancel bool
	}{
		{name: "server error", pages: map[string][]fakePage{"eastus": {{status: http.StatusInternalServerError, raw: "oops"}}},
			check: func(t *testing.T, err error) {
				var se *StatusError
				require.ErrorAs(t, err, &se)
				assert.Equal(t, http.StatusInternalServerError, se.StatusCode)
			}},
		{name: "malformed page", pages: map[string][]fakePage{"eastus": {threePages()[0], {raw: "<html>"}}},
			check: func(t *testing.T, err error) { require.ErrorIs(t, err, ErrMalformed) }},
		{name: "empty answer", pages: map[string][]fakePage{},
			check: func(t *testing.T, err error) { require.ErrorIs(t, err, ErrNoPrices) }},
		{name: "only Windows prices", pages: map[string][]fakePage{"eastus": {{items: []map[string]any{
			windows("eastus", "Standard_D2s_v3", "D2s v3", 0.188)}}}, "eastus" + diskKey: {}},
			check: func(t *testing.T, err error) { require.ErrorIs(t, err, ErrNoPrices) }},
		{name: "cancelled", pages: good, cancel: true,
			check: func(t *testing.T, err error) { require.ErrorIs(t, err, context.Canceled) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI(t, good)
			p := newTestProvider(t, api, "eastus")
			require.NoError(t, p.Refresh(context.Background()))
			first := p.Snapshot()

			api.setPages(tc.pages)
			ctx, cancel := context.WithCancel(context.Background())
			if tc.cancel {
				cancel()
			}
			err := p.Refresh(ctx)
			cancel()
			tc.check(t, err)

			assert.Same(t, first, p.Snapshot(), "the previous prices are kept")
			assert.Equal(t, time.Unix(t0Unix, 0), p.LastUpdated(), "a failed refresh is not an update")
			assert.Equal(t, 0.0106, lookup(t, p, "eastus", "Standard_D2s_v3").Spot)
		})
	}
}

func TestRefreshSomeRegionsFail(t *testing.T) {
	api := newFakeAPI(t, map[string][]fakePage{
		"eastus":           {{status: http.StatusTooManyRequests, raw: "slow down"}},
		"eastus" + diskKey: {{status: http.StatusTooManyRequests, raw: "slow down"}},
		"westus2":          {{items: []map[string]any{linux("westus2", "Standard_D2s_v3", "D2s v3", 0.099)}}},
		"newregion":        {{items: []map[string]any{linux("newregion", "Standard_D2s_v3", "D2s v3", 0.2)}}},
	})
	p := newTestProvider(t, api, "westus2", "EastUS", "newregion", "eastus")

	err := p.Refresh(context.Background())
	var se *StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "eastus", se.Region)
	assert.Contains(t, err.Error(), "slow down")

	assert.Equal(t, 0.096, lookup(t, p, "eastus", "Standard_D2s_v3").OnDemand, "failed region kept")
	assert.Equal(t, 0.099, lookup(t, p, "westus2", "Standard_D2s_v3").OnDemand, "good region updated")
	assert.Equal(t, 0.2, lookup(t, p, "newregion", "Standard_D2s_v3").OnDemand, "a region the snapshot lacked is added")
	assert.Equal(t, []string{"eastus", "newregion", "westus2"}, p.Snapshot().Regions())
	assert.Equal(t, time.Unix(t0Unix, 0).Add(time.Hour), p.LastUpdated(), "stamped by the last region swapped in")
	assert.Len(t, api.requestLog(), 6, "each region's VM and disk prices fetched once, repeats removed")
	disk, ok := lookupRegion(p, "westus2").ManagedDisk(StoragePremiumLRS, 128)
	assert.True(t, ok)
	assert.Equal(t, 21.0, disk.PerMonth, "good region's disk prices updated")
	_, ok = lookupRegion(p, "eastus").ManagedDisk(StoragePremiumLRS, 128)
	assert.False(t, ok, "failed region keeps what it had: no disk prices in the test snapshot")
}

func TestRefreshWithoutSpotKeepsKnownSpot(t *testing.T) {
	api := newFakeAPI(t, map[string][]fakePage{"eastus": {{items: []map[string]any{
		linux("eastus", "Standard_D2s_v3", "D2s v3", 0.097),
		linux("eastus", "Standard_B1s", "B1s", 0.0105),
	}}}})
	p := newTestProvider(t, api, "eastus")
	require.NoError(t, p.Refresh(context.Background()))
	assert.Equal(t, Price{OnDemand: 0.097, Spot: 0.01056, SpotKnown: true}, lookup(t, p, "eastus", "Standard_D2s_v3"))
	assert.Equal(t, Price{OnDemand: 0.0105, Spot: 0.0105}, lookup(t, p, "eastus", "Standard_B1s"))
}

func TestNewProvider(t *testing.T) {
	client, err := NewClient(ClientOptions{BaseURL: "http://127.0.0.1:1/prices"})
	require.NoError(t, err)
	tests := []struct {
		name    string
		opts    ProviderOptions
		wantErr bool
		wantIs  error
	}{
		{name: "offline, default snapshot", opts: ProviderOptions{}},
		{name: "client without regions", opts: ProviderOptions{Client: client}, wantErr: true},
		{name: "invalid region", opts: ProviderOptions{Client: client, Regions: []string{"east us"}},
			wantErr: true, wantIs: ErrInvalidRegion},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewProvider(tc.opts)
			if tc.wantErr {
				require.Error(t, err)
				if tc.wantIs != nil {
					assert.ErrorIs(t, err, tc.wantIs)
				}
				return
			}
			require.NoError(t, err)
			assert.Len(t, p.Snapshot().Regions(), 57)
			assert.True(t, p.LastUpdated().IsZero())
			require.ErrorIs(t, p.Refresh(context.Background()), ErrNoClient)
		})
	}
}

// Lookups run while refreshes swap prices in; run with -race.
func TestProviderConcurrentUse(t *testing.T) {
	api := newFakeAPI(t, map[string][]fakePage{"eastus": threePages()})
	p := newTestProvider(t, api, "eastus")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				assert.NoError(t, p.Refresh(ctx))
			}
		})
	}
	for range 8 {
		wg.Go(func() {
			for range 500 {
				prices, _ := p.Region("eastus")
				od, ok := prices.OnDemand("Standard_D2s_v3")
				assert.True(t, ok)
				assert.Equal(t, 0.096, od)
				_ = p.LastUpdated()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, time.Unix(t0Unix, 0).Add(19*time.Hour), p.LastUpdated(), "20 refreshes, one at a time")
}

func TestRefreshWaitHonoursContext(t *testing.T) {
	api := newFakeAPI(t, map[string][]fakePage{"eastus": {{block: true}}})
	p := newTestProviderTimeout(t, api, 300*time.Millisecond, "eastus")
	done := make(chan error)
	go func() { done <- p.Refresh(context.Background()) }() // holds the refresh slot until the client's timeout

	require.Eventually(t, func() bool { return len(api.requestLog()) == 1 }, 5*time.Second, time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, p.Refresh(ctx), context.DeadlineExceeded, "a second refresh gives up waiting")
	require.ErrorIs(t, <-done, context.DeadlineExceeded)
}

func lookupRegion(p *Provider, region string) RegionPrices {
	rp, _ := p.Region(region)
	return rp
}
