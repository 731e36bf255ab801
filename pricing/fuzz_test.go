package pricing

import (
	"bytes"
	"encoding/csv"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseCSV checks that ParseCSV never panics, that every error it gives for in-memory input
// wraps ErrMalformed, and that a snapshot it returns holds exactly the input's rows.
func FuzzParseCSV(f *testing.F) {
	for _, seed := range []string{
		"region,sku,on_demand_usd_per_hour,spot_usd_per_hour\neastus,Standard_D2s_v3,0.096000,0.01056\n",
		"region,sku,on_demand_usd_per_hour,spot_usd_per_hour\neastus,Standard_B1s,0.0104,\nWestUS2,Standard_B1s ,0.0105,\n",
		"region,sku,on_demand_usd_per_hour,spot_usd_per_hour\neastus,a,1,\neastus,a,2,\n",
		"region,sku,on_demand_usd_per_hour,spot_usd_per_hour\neastus,\"Standard\nB1s\",NaN,\n",
		"sku,on_demand_usd_per_hour\nStandard_A1_v2,0.043\nStandard_A2_v2,-1\n",
		"sku,on_demand_usd_per_hour\r\n\"Standard_A1_v2\",1e3\r\n",
		"\ufeffsku,on_demand_usd_per_hour\n",
		"",
		"region,sku\n",
		"\"sku,on_demand_usd_per_hour\"\nx\n",
		"\"region,sku,on_demand_usd_per_hour,spot_usd_per_hour\"\nx\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		snap, err := ParseCSV(bytes.NewReader(data), "eastus")
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error does not wrap ErrMalformed: %v", err)
			}
			var pe *ParseError
			if errors.As(err, &pe) && pe.Line < 1 {
				t.Fatalf("error names line %d: %v", pe.Line, err)
			}
			return
		}
		checkRows(t, snap, data)
	})
}

// checkRows reads data again with encoding/csv and checks that snap has each row's prices, and no
// more rows than data.
func checkRows(t *testing.T, snap *Snapshot, data []byte) {
	records, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(records) == 0 {
		t.Fatalf("ParseCSV accepted input that encoding/csv rejects: %v", err)
	}
	catalogue := len(records[0]) == 2
	for _, rec := range records[1:] {
		region, rest := "eastus", rec
		if !catalogue {
			region, rest = strings.ToLower(strings.TrimSpace(rec[0])), rec[1:]
		}
		prices, note := snap.Region(region)
		if note.Message != "" {
			t.Fatalf("region %q of row %q missing: %s", region, rec, note.Message)
		}
		got, ok := prices.Lookup(strings.TrimSpace(rest[0]))
		if !ok || got != wantPrice(t, rest) {
			t.Fatalf("row %q: got %+v, %v", rec, got, ok)
		}
	}
	total := 0
	for _, r := range snap.Regions() {
		prices, _ := snap.Region(r)
		total += prices.Len()
	}
	if total != len(records)-1 {
		t.Fatalf("snapshot has %d prices for %d rows", total, len(records)-1)
	}
}

// wantPrice is the price a row (without its region) must give: sku, on-demand[, spot].
func wantPrice(t *testing.T, rest []string) Price {
	od, err := strconv.ParseFloat(strings.TrimSpace(rest[1]), 64)
	if err != nil {
		t.Fatalf("ParseCSV accepted price %q: %v", rest[1], err)
	}
	p := Price{OnDemand: od, Spot: od}
	if len(rest) > 2 && strings.TrimSpace(rest[2]) != "" {
		if p.Spot, err = strconv.ParseFloat(strings.TrimSpace(rest[2]), 64); err != nil {
			t.Fatalf("ParseCSV accepted spot %q: %v", rest[2], err)
		}
		p.SpotKnown = true
	}
	return p
}
