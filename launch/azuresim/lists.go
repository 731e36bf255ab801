package azuresim

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Read-only lists the simulator serves besides resources: node image versions (community and
// shared galleries), compute usages and Retail Prices API items.
const (
	// OpImageVersionList lists a gallery image's versions; Record.Name is the image definition.
	OpImageVersionList Op = "imageversion.list"
	// OpUsageList lists the region's compute usages.
	OpUsageList Op = "usage.list"
	// OpRetailPrices is a Retail Prices API query (prices.azure.com, no credential).
	OpRetailPrices Op = "retailprices.get"
)

// ImageVersion is one published version of an image definition.
type ImageVersion struct {
	Version     string
	PublishedAt time.Time
	// ExcludeFromLatest marks a version that is never "latest".
	ExcludeFromLatest bool
}

// RetailPrice is one Retail Prices API item.
type RetailPrice struct {
	ArmSKUName  string  `json:"armSkuName"`
	RetailPrice float64 `json:"retailPrice"`
	ProductName string  `json:"productName"`
	SkuName     string  `json:"skuName"`
	MeterName   string  `json:"meterName"`
	Region      string  `json:"armRegionName"`
	// UnitOfMeasure is "1 Hour" for VMs, "1/Month" for disk tiers.
	UnitOfMeasure string `json:"unitOfMeasure"`
}

// lists is what the read-only lists serve; guarded by Sim.mu.
type lists struct {
	images map[string][]ImageVersion // by lower-case definition name
	prices []RetailPrice
	des    map[string]bool // disk encryption sets by key(rg, name): readable
	// subnets by key(rg, vnet/subnet)
	subnets map[string]bool
}

// PublishImageVersion adds a version of an image definition, in every gallery the simulator
// serves (community and shared), as AKS publishes a weekly node image.
func (s *Sim) PublishImageVersion(definition string, v ImageVersion) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lists.images == nil {
		s.lists.images = map[string][]ImageVersion{}
	}
	key := strings.ToLower(definition)
	s.lists.images[key] = append(s.lists.images[key], v)
}

// SetRetailPrices replaces the Retail Prices API items.
func (s *Sim) SetRetailPrices(items []RetailPrice) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists.prices = slices.Clone(items)
}

// HTTPClient is an http.Client whose transport is the simulator, for clients that take one
// (the Retail Prices API client).
func (s *Sim) HTTPClient() *http.Client { return &http.Client{Transport: roundTripper{s}} }

type roundTripper struct{ s *Sim }

func (r roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return r.s.Do(req) }

// routeList matches the list paths (lower is the lower-case path split on "/"):
//
//	/subscriptions/S/providers/Microsoft.Compute/locations/L/communityGalleries/G/images/D/versions
//	/subscriptions/S/resourceGroups/R/providers/Microsoft.Compute/galleries/G/images/D/versions
//	/subscriptions/S/providers/Microsoft.Compute/locations/L/usages
func routeList(c *call, method string, seg, lower []string) (Op, bool) {
	if method != http.MethodGet {
		return "", false
	}
	switch {
	case len(lower) == 11 && lower[2] == "providers" && lower[4] == "locations" && lower[6] == "communitygalleries" &&
		lower[8] == "images" && lower[10] == "versions":
		c.name = seg[9]
		return OpImageVersionList, true
	case len(lower) == 11 && lower[2] == "resourcegroups" && lower[6] == "galleries" && lower[8] == "images" && lower[10] == "versions":
		c.rg, c.name = seg[3], seg[9]
		return OpImageVersionList, true
	case len(lower) == 7 && lower[2] == "providers" && lower[4] == "locations" && lower[6] == "usages":
		return OpUsageList, true
	}
	return "", false
}

// isRetailPrices reports a Retail Prices API path.
func isRetailPrices(path string) bool {
	return strings.HasSuffix(strings.ToLower(strings.TrimRight(path, "/")), "/api/retail/prices")
}

// listImageVersions answers with the definition's versions, shaped as both the community and the
// shared gallery answer them (the SDK reads the fields of its own type).
func (s *Sim) listImageVersions(c call) reply {
	versions := s.lists.images[strings.ToLower(c.name)]
	all := make([]any, 0, len(versions))
	for _, v := range versions {
		props := map[string]any{
			"publishedDate":     v.PublishedAt.UTC().Format(time.RFC3339),
			"excludeFromLatest": v.ExcludeFromLatest,
			"publishingProfile": map[string]any{"publishedDate": v.PublishedAt.UTC().Format(time.RFC3339), "excludeFromLatest": v.ExcludeFromLatest},
		}
		all = append(all, map[string]any{"name": v.Version, "location": s.opts.Location, "properties": props})
	}
	return s.page(c, all)
}

// listUsages answers one usage per configured quota, with the vCPUs live VMs use.
func (s *Sim) listUsages(c call) reply {
	names := make([]string, 0, len(s.opts.Quota))
	for name := range s.opts.Quota {
		names = append(names, name)
	}
	slices.Sort(names)
	all := make([]any, 0, len(names))
	for _, name := range names {
		all = append(all, map[string]any{
			"name": map[string]string{"value": name, "localizedValue": name},
			"unit": "Count", "currentValue": s.usedVCPUs(name), "limit": s.opts.Quota[name],
		})
	}
	return s.page(c, all)
}

// retailPrices answers a Retail Prices API page: the items of the $filter's region (all when the
// filter names none), managed-disk items for a filter on Managed Disks products and VM items
// otherwise, $skip paged.
func (s *Sim) retailPrices(c call) reply {
	region := ""
	disks := strings.Contains(c.query.Get("$filter"), "Managed Disks")
	if f := c.query.Get("$filter"); f != "" {
		if i := strings.Index(f, "armRegionName eq '"); i >= 0 {
			rest := f[i+len("armRegionName eq '"):]
			region = rest[:max(strings.IndexByte(rest, '\''), 0)]
		}
	}
	var items []RetailPrice
	for _, it := range s.lists.prices {
		if (region == "" || strings.EqualFold(it.Region, region)) && strings.Contains(it.ProductName, "Managed Disks") == disks {
			items = append(items, it)
		}
	}
	slices.SortFunc(items, func(a, b RetailPrice) int {
		return cmp.Or(cmp.Compare(a.ArmSKUName, b.ArmSKUName), cmp.Compare(a.SkuName, b.SkuName))
	})
	start, _ := strconv.Atoi(c.query.Get("$skip"))
	start = min(max(start, 0), len(items))
	end := min(start+s.opts.PageSize, len(items))
	body := map[string]any{"Items": items[start:end], "Count": end - start}
	if end < len(items) {
		q := c.query
		q.Set("$skip", strconv.Itoa(end))
		body["NextPageLink"] = c.base + c.path + "?" + q.Encode()
	}
	return jsonReply(http.StatusOK, body)
}
