package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch/azuresim"
)

// retailPricesServer serves the simulated Azure's Retail Prices API over HTTP.
func retailPricesServer(t *testing.T, sim *azuresim.Sim) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.Scheme, r.URL.Host = "http", r.Host
		resp, err := sim.Do(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/api/retail/prices"
}

// --prices live reads the Retail Prices API; a size without a spot meter is priced at on-demand
// for spot, and instance-types says so (JSON spotPriceKnown false, table "= on-demand").
func TestInstanceTypesLivePrices(t *testing.T) {
	sim := azuresim.New(azuresim.Options{})
	item := func(sku, skuName string, price float64) azuresim.RetailPrice {
		return azuresim.RetailPrice{ArmSKUName: sku, RetailPrice: price, ProductName: "Virtual Machines Dasv6 Series",
			SkuName: skuName, MeterName: skuName, Region: "eastus", UnitOfMeasure: "1 Hour"}
	}
	sim.SetRetailPrices([]azuresim.RetailPrice{
		item("Standard_D2as_v6", "D2as v6", 0.2), item("Standard_D2as_v6", "D2as v6 Spot", 0.02),
		item("Standard_D4as_v6", "D4as v6", 0.4),
		{RetailPrice: 19.71, ProductName: "Premium SSD Managed Disks", SkuName: "P10 LRS", MeterName: "P10 LRS Disk",
			UnitOfMeasure: "1/Month", Region: "eastus"},
	})
	url := retailPricesServer(t, sim)
	var stdout, stderr bytes.Buffer
	code := run([]string{"instance-types", "--prices", "live", "--prices-url", url, "-o", "json"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	var view instanceTypesView
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &view))
	spot := map[string]offeringView{}
	for _, it := range view.InstanceTypes {
		for _, o := range it.Offerings {
			if o.CapacityType == "spot" {
				spot[it.Name] = o
			}
		}
	}
	require.Contains(t, spot, "Standard_D2as_v6")
	require.Contains(t, spot, "Standard_D4as_v6")
	assert.True(t, *spot["Standard_D2as_v6"].SpotPriceKnown)
	assert.InDelta(t, 0.02, spot["Standard_D2as_v6"].VMPricePerHour, 1e-9, "the live spot price")
	assert.False(t, *spot["Standard_D4as_v6"].SpotPriceKnown)
	assert.InDelta(t, 0.4, spot["Standard_D4as_v6"].VMPricePerHour, 1e-9, "no spot price: priced at on-demand, never cheaper")
	assert.NotEmpty(t, sim.RequestsFor(azuresim.OpRetailPrices, ""))

	stdout.Reset()
	code = run([]string{"instance-types", "--prices", "live", "--prices-url", url}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Regexp(t, `Standard_D4as_v6 .* = on-demand`, stdout.String())
	assert.Contains(t, stdout.String(), "no known spot price")

	sim.Inject(azuresim.Fault{Kind: azuresim.FaultServerError, Op: azuresim.OpRetailPrices})
	stdout.Reset()
	stderr.Reset()
	code = run([]string{"instance-types", "--prices", "live", "--prices-url", url}, &stdout, &stderr)
	assert.NotEqual(t, 0, code)
	assert.Contains(t, stderr.String(), "--prices live")
}
