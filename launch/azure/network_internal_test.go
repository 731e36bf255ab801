package azure

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Reference 7.3: the billing extension exists in the public, China and US
// Government clouds only.
func TestBillsByExtension(t *testing.T) {
	custom := cloud.Configuration{Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
		cloud.ResourceManager: {Endpoint: "https://management.local.azurestack.external"}}}
	for name, tt := range map[string]struct {
		cfg  cloud.Configuration
		want bool
	}{
		"azcore default": {cloud.Configuration{}, true}, "public": {cloud.AzurePublic, true},
		"China": {cloud.AzureChina, true}, "US Government": {cloud.AzureGovernment, true}, "Azure Stack": {custom, false},
	} {
		assert.Equal(t, tt.want, billsByExtension(tt.cfg), name)
	}
}

func TestIsManagedVNET(t *testing.T) {
	const sub = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/"
	for subnet, want := range map[string]bool{
		sub + "MC_rg/providers/Microsoft.Network/virtualNetworks/aks-vnet-18484614/subnets/aks-subnet": true,
		sub + "mc_RG/providers/Microsoft.Network/virtualNetworks/aks-vnet-18484614/subnets/aks-subnet": true,
		sub + "MC_rg/providers/Microsoft.Network/virtualNetworks/custom-vnet/subnets/aks-subnet":       false,
		sub + "MC_rg/providers/Microsoft.Network/virtualNetworks/aks-vnet-18484614/subnets/custom":     false,
		sub + "other/providers/Microsoft.Network/virtualNetworks/aks-vnet-18484614/subnets/aks-subnet": false,
		"not-a-subnet": false,
	} {
		assert.Equal(t, want, isManagedVNET(subnet, "MC_rg"), subnet)
	}
}

// Concurrent misses share one fetch; values expire after the TTL; failures
// are not cached; invalidate forces a new fetch.
func TestLookupCache(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c := newLookupCache[int](time.Hour, clock)
	var fetches atomic.Int32
	release := make(chan struct{})
	fetch := func(context.Context) (int, error) { fetches.Add(1); <-release; return 7, nil }

	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			v, err := c.get(context.Background(), fetch)
			assert.NoError(t, err)
			assert.Equal(t, 7, v)
		})
	}
	time.Sleep(10 * time.Millisecond) // let the callers join the fetch
	close(release)
	wg.Wait()
	assert.Equal(t, int32(1), fetches.Load())

	_, _ = c.get(context.Background(), fetch)
	assert.Equal(t, int32(1), fetches.Load(), "cached")
	mu.Lock()
	now = now.Add(time.Hour)
	mu.Unlock()
	_, _ = c.get(context.Background(), fetch)
	assert.Equal(t, int32(2), fetches.Load(), "expired")
	c.invalidate()
	_, _ = c.get(context.Background(), fetch)
	assert.Equal(t, int32(3), fetches.Load(), "invalidated")

	failing := newLookupCache[int](time.Hour, clock)
	boom := errors.New("boom")
	_, err := failing.get(context.Background(), func(context.Context) (int, error) { return 0, boom })
	require.ErrorIs(t, err, boom)
	v, err := failing.get(context.Background(), func(context.Context) (int, error) { return 3, nil })
	require.NoError(t, err)
	assert.Equal(t, 3, v, "a failure is not cached")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	blocked := newLookupCache[int](time.Hour, clock)
	_, err = blocked.get(ctx, func(context.Context) (int, error) { time.Sleep(50 * time.Millisecond); return 1, nil })
	assert.ErrorIs(t, err, context.Canceled, "a caller that gives up does not wait")
}
