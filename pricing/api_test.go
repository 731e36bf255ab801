package pricing

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// This file holds a fake Retail Prices API for the client and provider tests. It serves pages in
// the API's documented JSON shape and records the requests it gets.

// fakePage is one page the fake serves.
type fakePage struct {
	items  []map[string]any
	raw    string // served instead of items when set (a malformed page, or an error body)
	status int    // answered instead of 200 when set
	block  bool   // hang until the request is cancelled
}

// diskKey marks the pages key of a region's managed-disk answer ("eastus" + diskKey). A region
// without such a key gets diskItems(region, 21, 10) when its VM answer has items, else the VM answer
// itself (the same failure).
const diskKey = "/disks"

// diskItems is a managed-disk answer: P10 and E10 tier meters at the given monthly prices, and the
// meters the client must skip (mount, operations, ZRS, a per-hour unit).
func diskItems(region string, p10, e10 float64) []map[string]any {
	disk := func(product, meter, unit string, price float64) map[string]any {
		it := item(region, "", meter, product, price)
		it["serviceName"], it["serviceFamily"], it["unitOfMeasure"] = "Storage", "Storage", unit
		it["skuName"] = strings.TrimSuffix(strings.TrimSuffix(meter, " Disk Mount"), " Disk")
		return it
	}
	return []map[string]any{
		disk("Premium SSD Managed Disks", "P10 LRS Disk", "1/Month", p10),
		disk("Premium SSD Managed Disks", "P10 LRS Disk Mount", "1/Month", 1.5),
		disk("Premium SSD Managed Disks", "P10 ZRS Disk", "1/Month", 2*p10),
		disk("Standard SSD Managed Disks", "E10 LRS Disk", "1/Month", e10),
		disk("Standard SSD Managed Disks", "E10 LRS Disk Operations", "10K", 0.002),
		disk("Standard SSD Managed Disks", "E10 LRS Disk", "1 Hour", 0.001),
	}
}

type fakeAPI struct {
	srv *httptest.Server

	mu       sync.Mutex
	pages    map[string][]fakePage // region → pages, in order
	requests []*http.Request
}

func newFakeAPI(t *testing.T, pages map[string][]fakePage) *fakeAPI {
	t.Helper()
	f := &fakeAPI{pages: pages}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// setPages replaces what the fake serves, for tests of successive refreshes.
func (f *fakeAPI) setPages(pages map[string][]fakePage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pages = pages
}

func (f *fakeAPI) requestLog() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.requests...)
}

func (f *fakeAPI) client(t *testing.T, opts ClientOptions) *Client {
	t.Helper()
	opts.BaseURL = f.srv.URL + "/api/retail/prices"
	c, err := NewClient(opts)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	region, index := q.Get("region"), 0
	if _, after, ok := strings.Cut(q.Get("$filter"), "armRegionName eq '"); ok {
		region, _, _ = strings.Cut(after, "'")
	}
	if p := q.Get("page"); p != "" {
		index, _ = strconv.Atoi(p)
	}
	f.mu.Lock()
	f.requests = append(f.requests, r.Clone(r.Context()))
	if strings.Contains(q.Get("$filter"), "serviceName eq 'Storage'") {
		region += diskKey
	}
	pages, ok := f.pages[region]
	if vmRegion, isDisk := strings.CutSuffix(region, diskKey); isDisk && !ok {
		pages = f.pages[vmRegion] // a failing VM answer fails the disk answer the same way
		if len(pages) > 0 && !slices.ContainsFunc(pages, func(p fakePage) bool { return p.items == nil }) {
			pages = []fakePage{{items: diskItems(vmRegion, 21.0, 10.0)}}
		}
	}
	f.mu.Unlock()
	if index >= len(pages) {
		writePage(w, nil, "")
		return
	}
	f.answer(w, r, pages[index], region, index, len(pages))
}

func (f *fakeAPI) answer(w http.ResponseWriter, r *http.Request, p fakePage, region string, index, count int) {
	switch {
	case p.block:
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	case p.status != 0:
		w.WriteHeader(p.status)
		_, _ = w.Write([]byte(p.raw))
	case p.raw != "":
		_, _ = w.Write([]byte(p.raw))
	default:
		next := ""
		if index+1 < count {
			next = f.srv.URL + "/api/retail/prices?region=" + region + "&page=" + strconv.Itoa(index+1)
		}
		writePage(w, p.items, next)
	}
}

func writePage(w http.ResponseWriter, items []map[string]any, next string) {
	if items == nil {
		items = []map[string]any{}
	}
	body := map[string]any{
		"BillingCurrency":    "USD",
		"CustomerEntityId":   "Default",
		"CustomerEntityType": "Retail",
		"Items":              items,
		"NextPageLink":       nil,
		"Count":              len(items),
	}
	if next != "" {
		body["NextPageLink"] = next
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

// item is one price item with every documented field. meter is the short size name the API uses
// in meterName and skuName, such as "D2s v3".
func item(region, armSKU, meter, product string, price float64) map[string]any {
	return map[string]any{
		"currencyCode":         "USD",
		"tierMinimumUnits":     0.0,
		"retailPrice":          price,
		"unitPrice":            price,
		"armRegionName":        region,
		"location":             "US East",
		"effectiveStartDate":   "2024-05-01T00:00:00Z",
		"meterId":              "5bd3c3d6-1a1e-4dfe-a4a2-0c0d28a8e6a1",
		"meterName":            meter,
		"productId":            "DZH318Z0BQ4L",
		"skuId":                "DZH318Z0BQ4L/00Q1",
		"productName":          product,
		"skuName":              meter,
		"serviceName":          "Virtual Machines",
		"serviceId":            "DZH313Z7MMC8",
		"serviceFamily":        "Compute",
		"unitOfMeasure":        "1 Hour",
		"type":                 "Consumption",
		"isPrimaryMeterRegion": true,
		"armSkuName":           armSKU,
	}
}

func linux(region, armSKU, meter string, price float64) map[string]any {
	return item(region, armSKU, meter, "Virtual Machines Series", price)
}

func windows(region, armSKU, meter string, price float64) map[string]any {
	return item(region, armSKU, meter, "Virtual Machines Series Windows", price)
}

func spotItem(region, armSKU, meter string, price float64) map[string]any {
	return item(region, armSKU, meter+" Spot", "Virtual Machines Series", price)
}

func lowPriority(region, armSKU, meter string, price float64) map[string]any {
	return item(region, armSKU, meter+" Low Priority", "Virtual Machines Series", price)
}
