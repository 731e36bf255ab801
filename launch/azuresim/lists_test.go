package azuresim_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch/azuresim"
	"github.com/napkit/napkit/pricing"
)

// The Retail Prices API as the simulator serves it, read by the real pricing client and provider:
// prices refresh (spot included), and a throttled, failing or empty answer keeps the last good table.
func TestRetailPrices(t *testing.T) {
	sim := azuresim.New(azuresim.Options{PageSize: 2})
	item := func(sku, skuName, product string, price float64) azuresim.RetailPrice {
		return azuresim.RetailPrice{ArmSKUName: sku, RetailPrice: price, ProductName: product, SkuName: skuName,
			MeterName: skuName, Region: "eastus"}
	}
	sim.SetRetailPrices([]azuresim.RetailPrice{
		item("Standard_D2s_v5", "D2s v5", "Virtual Machines Dsv5 Series", 0.5),
		item("Standard_D2s_v5", "D2s v5 Spot", "Virtual Machines Dsv5 Series", 0.1),
		item("Standard_D2s_v5", "D2s v5", "Virtual Machines Dsv5 Series Windows", 0.9),
		item("Standard_D4s_v5", "D4s v5", "Virtual Machines Dsv5 Series", 1.0),
		{RetailPrice: 19.71, ProductName: "Premium SSD Managed Disks", SkuName: "P10 LRS", MeterName: "P10 LRS Disk",
			UnitOfMeasure: "1/Month", Region: "eastus"},
		{ArmSKUName: "Standard_D2s_v5", RetailPrice: 0.01, ProductName: "Virtual Machines Dsv5 Series", SkuName: "D2s v5", Region: "westus2"},
	})
	client, err := pricing.NewClient(pricing.ClientOptions{HTTPClient: sim.HTTPClient()})
	require.NoError(t, err)
	clock := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	p, err := pricing.NewProvider(pricing.ProviderOptions{Client: client, Regions: []string{"eastus"}, Clock: func() time.Time { return clock }})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, p.Refresh(ctx))
	prices, _ := p.Region("eastus")
	d2, ok := prices.Lookup("Standard_D2s_v5")
	require.True(t, ok)
	assert.Equal(t, 0.5, d2.OnDemand, "the Windows meter is not the Linux price")
	assert.Equal(t, 0.1, d2.Spot)
	assert.True(t, d2.SpotKnown)
	d4, ok := prices.Lookup("Standard_D4s_v5")
	require.True(t, ok)
	assert.False(t, d4.SpotKnown, "no spot meter, no spot price")
	assert.Equal(t, clock, p.LastUpdated())
	assert.Len(t, sim.RequestsFor(azuresim.OpRetailPrices, ""), 3, "two pages of VM prices, one of disk prices")

	for name, fault := range map[string]func(){
		"throttled": func() {
			sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpRetailPrices, RetryAfter: time.Second})
		},
		"server error": func() { sim.Inject(azuresim.Fault{Kind: azuresim.FaultServerError, Op: azuresim.OpRetailPrices}) },
		"empty answer": func() { sim.SetRetailPrices(nil) },
	} {
		t.Run(name, func(t *testing.T) {
			fault()
			defer sim.ClearFaults()
			require.Error(t, p.Refresh(ctx))
			kept, _ := p.Region("eastus")
			d2, ok := kept.Lookup("Standard_D2s_v5")
			require.True(t, ok)
			assert.Equal(t, 0.5, d2.OnDemand, "the last good table is kept")
			assert.Equal(t, clock, p.LastUpdated())
		})
	}
}
