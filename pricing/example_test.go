package pricing_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/napkit/napkit/pricing"
)

func ExampleSnapshot_Region() {
	snap, err := pricing.DefaultSnapshot()
	if err != nil {
		fmt.Println(err)
		return
	}
	prices, _ := snap.Region("eastus")
	d2s, _ := prices.Lookup("Standard_D2s_v3")
	fmt.Printf("D2s_v3: on-demand %.3f, spot %.5f (known %v)\n", d2s.OnDemand, d2s.Spot, d2s.SpotKnown)
	b2s, _ := prices.Lookup("Standard_B2s")
	fmt.Printf("B2s: on-demand %.4f, spot %.4f (known %v)\n", b2s.OnDemand, b2s.Spot, b2s.SpotKnown)
	d2as, _ := prices.OnDemand("Standard_D2as_v5")
	fmt.Printf("D2as_v5: %.3f\n", d2as)

	elsewhere, note := snap.Region("mars")
	fmt.Println(note.Message, "->", elsewhere.Region())
	// Output:
	// D2s_v3: on-demand 0.096, spot 0.01056 (known true)
	// B2s: on-demand 0.0416, spot 0.0416 (known false)
	// D2as_v5: 0.086
	// no prices for region mars; using eastus -> eastus
}

func ExampleParseCSV() {
	table := "sku,on_demand_usd_per_hour\nStandard_D2s_v3,0.096\nStandard_D4s_v3,0.192\n"
	snap, err := pricing.ParseCSV(strings.NewReader(table), "eastus")
	if err != nil {
		fmt.Println(err)
		return
	}
	prices, _ := snap.Region("eastus")
	fmt.Println(prices.Len(), "prices")

	_, err = pricing.ParseCSV(strings.NewReader("sku,on_demand_usd_per_hour\nStandard_D2s_v3,0\n"), "eastus")
	fmt.Println(err)
	// Output:
	// 2 prices
	// pricing: line 2, column on_demand_usd_per_hour, value "0": price must be a finite number greater than zero
}

// A Provider starts from a snapshot and swaps in live prices on Refresh. The server here stands in
// for the Retail Prices API.
func ExampleProvider() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Query().Get("$filter"), "serviceName eq 'Storage'") {
			fmt.Fprint(w, `{"Items": [{"productName": "Premium SSD Managed Disks", "skuName": "P10 LRS",
			 "meterName": "P10 LRS Disk", "unitOfMeasure": "1/Month", "retailPrice": 21.5}], "NextPageLink": null}`)
			return
		}
		fmt.Fprint(w, `{"Items": [
			{"armSkuName": "Standard_D2s_v3", "skuName": "D2s v3", "meterName": "D2s v3",
			 "productName": "Virtual Machines DSv3 Series", "retailPrice": 0.095},
			{"armSkuName": "Standard_D2s_v3", "skuName": "D2s v3 Spot", "meterName": "D2s v3 Spot",
			 "productName": "Virtual Machines DSv3 Series", "retailPrice": 0.012}],
			"NextPageLink": null}`)
	}))
	defer api.Close()

	client, err := pricing.NewClient(pricing.ClientOptions{BaseURL: api.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	provider, err := pricing.NewProvider(pricing.ProviderOptions{Client: client, Regions: []string{"eastus"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	before, _ := provider.Region("eastus")
	if err := provider.Refresh(context.Background()); err != nil {
		fmt.Println(err) // the previous prices stay in use
	}
	after, _ := provider.Region("eastus")
	for _, prices := range []pricing.RegionPrices{before, after} {
		spot, _ := prices.Spot("Standard_D2s_v3")
		disk, _ := prices.ManagedDisk(pricing.StoragePremiumLRS, 128)
		fmt.Printf("D2s_v3 spot %.5f, 128 GiB Premium_LRS OS disk %s $%.2f/month\n", spot, disk.Tier, disk.PerMonth)
	}
	// Output:
	// D2s_v3 spot 0.01056, 128 GiB Premium_LRS OS disk P10 $19.71/month
	// D2s_v3 spot 0.01200, 128 GiB Premium_LRS OS disk P10 $21.50/month
}
