package pricing

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

const (
	// DefaultBaseURL is the Azure Retail Prices API endpoint. It needs no credentials.
	DefaultBaseURL = "https://prices.azure.com/api/retail/prices"
	// APIVersion is the Retail Prices API version the client asks for.
	APIVersion = "2023-01-01-preview"
	// DefaultTimeout bounds one Fetch, all pages included. A region is a few dozen pages.
	DefaultTimeout = 2 * time.Minute
	// DefaultMaxPages bounds the pages of one Fetch, far above the few dozen a region needs.
	DefaultMaxPages = 1000

	// maxPageBytes bounds the body read for one page; a page of 1,000 items is about 1 MB.
	maxPageBytes = 64 << 20
)

// ClientOptions configures a Client. The zero value is ready to use.
type ClientOptions struct {
	// BaseURL is the endpoint without a query; the client adds api-version and $filter.
	// Default DefaultBaseURL. Tests point it at an httptest server.
	BaseURL string
	// HTTPClient sends the requests. Default: a new http.Client with no timeout of its own.
	HTTPClient *http.Client
	// Timeout bounds one Fetch, all pages included, on top of the caller's context.
	// Default DefaultTimeout.
	Timeout time.Duration
	// MaxPages bounds the pages of one Fetch. Default DefaultMaxPages.
	MaxPages int
}

// Client reads VM prices from the Azure Retail Prices API. It is safe for concurrent use. It does not
// retry: a Provider keeps the previous prices on failure and its caller refreshes again later.
type Client struct {
	base     *url.URL
	http     *http.Client
	timeout  time.Duration
	maxPages int
}

// NewClient checks opts, fills in defaults and returns a client.
func NewClient(opts ClientOptions) (*Client, error) {
	if opts.Timeout < 0 || opts.MaxPages < 0 {
		return nil, fmt.Errorf("pricing: negative Timeout (%v) or MaxPages (%d)", opts.Timeout, opts.MaxPages)
	}
	base, err := parseBaseURL(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	c := &Client{base: base, http: opts.HTTPClient, timeout: opts.Timeout, maxPages: opts.MaxPages}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	}
	if c.maxPages == 0 {
		c.maxPages = DefaultMaxPages
	}
	return c, nil
}

func parseBaseURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = DefaultBaseURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("pricing: BaseURL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("pricing: BaseURL %q: want an absolute http or https URL", u.Redacted())
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("pricing: BaseURL %q: want no query or fragment; the client adds its own",
			u.Redacted())
	}
	return u, nil
}

// Fetch returns the Linux prices of one region by ARM SKU name, following NextPageLink to the last
// page. Spot prices come from the meters whose skuName ends in " Spot"; a SKU without one is
// priced at on-demand with SpotKnown false. An answer with no items gives an empty map.
//
// Errors: ErrInvalidRegion for a bad name; a *StatusError for an answer other than 200 OK; an error
// wrapping ErrMalformed and naming the page for a body that is not the API's JSON; ErrTooManyPages;
// otherwise the transport's error, which wraps context.DeadlineExceeded or context.Canceled when the
// timeout or ctx ends the fetch.
func (c *Client) Fetch(ctx context.Context, region string) (map[string]Price, error) {
	col := newCollector()
	if err := c.fetchAll(ctx, region, filter, col.add); err != nil {
		return nil, err
	}
	return col.prices(), nil
}

// FetchDisks returns the managed-disk tier prices of one region: the monthly "<tier> LRS Disk"
// meters of Premium SSD (Premium_LRS), Standard SSD (StandardSSD_LRS) and Standard HDD
// (Standard_LRS) managed disks, by storage account type, each sorted by size. Mount, operation and
// bursting meters, ZRS and other redundancies are left out. Errors are those of Fetch.
func (c *Client) FetchDisks(ctx context.Context, region string) (DiskTables, error) {
	col := newDiskCollector()
	if err := c.fetchAll(ctx, region, diskFilter, col.add); err != nil {
		return nil, err
	}
	return col.tables(), nil
}

// fetchAll pages through one region's answer to the filter made by filterOf, passing every item to
// add.
func (c *Client) fetchAll(ctx context.Context, region string, filterOf func(string) string, add func(apiItem)) error {
	name, err := regionName(region)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	next := c.firstPage(filterOf(name))
	for page := 1; next != nil; page++ {
		if page > c.maxPages {
			return fmt.Errorf("pricing: region %s: %w (limit %d)", name, ErrTooManyPages, c.maxPages)
		}
		p, err := c.getPage(ctx, name, page, next)
		if err != nil {
			return err
		}
		for _, it := range p.Items {
			add(it)
		}
		if next, err = nextPage(next, p.NextPageLink); err != nil {
			return fmt.Errorf("pricing: region %s page %d: NextPageLink: %w: %w", name, page, ErrMalformed, err)
		}
	}
	return nil
}

// filter is the OData filter for one region's Linux and Windows VM consumption prices in USD;
// Windows items are dropped afterwards, by name, as the API cannot filter on a suffix.
func filter(region string) string {
	return "priceType eq 'Consumption' and currencyCode eq 'USD' and serviceFamily eq 'Compute'" +
		" and serviceName eq 'Virtual Machines' and armRegionName eq '" + region + "'"
}

// diskFilter is the OData filter for one region's managed-disk consumption prices in USD; the
// collector keeps the monthly LRS tier meters.
func diskFilter(region string) string {
	return "priceType eq 'Consumption' and currencyCode eq 'USD' and serviceName eq 'Storage'" +
		" and armRegionName eq '" + region + "' and (productName eq 'Premium SSD Managed Disks'" +
		" or productName eq 'Standard SSD Managed Disks' or productName eq 'Standard HDD Managed Disks')"
}

func (c *Client) firstPage(filter string) *url.URL {
	u := *c.base
	// Spaces are sent as %20, not '+', and $filter unescaped, as in the API's documentation.
	esc := strings.ReplaceAll(url.QueryEscape(filter), "+", "%20")
	u.RawQuery = "api-version=" + APIVersion + "&$filter=" + esc
	return &u
}

// nextPage resolves the NextPageLink of page cur; nil means cur was the last page.
func nextPage(cur *url.URL, link string) (*url.URL, error) {
	if link == "" {
		return nil, nil
	}
	ref, err := url.Parse(link)
	if err != nil {
		return nil, err
	}
	return cur.ResolveReference(ref), nil
}

func (c *Client) getPage(ctx context.Context, region string, page int, u *url.URL) (*apiPage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("pricing: region %s page %d: %w", region, page, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("pricing: region %s page %d: %w", region, page, err)
	}
	defer closeBody(resp.Body)
	if resp.StatusCode != http.StatusOK {
		start, _ := io.ReadAll(io.LimitReader(resp.Body, 4*maxExcerpt))
		return nil, &StatusError{Region: region, Page: page, StatusCode: resp.StatusCode, Excerpt: excerpt(start)}
	}
	return decodePage(ctx, region, page, resp.Body)
}

func decodePage(ctx context.Context, region string, page int, body io.Reader) (*apiPage, error) {
	var p apiPage
	err := json.NewDecoder(io.LimitReader(body, maxPageBytes)).Decode(&p)
	if err == nil {
		return &p, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		// A body cut short by the deadline or a cancellation is not a malformed page.
		return nil, fmt.Errorf("pricing: region %s page %d: %w (reading body: %v)", region, page, ctxErr, err)
	}
	return nil, fmt.Errorf("pricing: region %s page %d: %w: %w", region, page, ErrMalformed, err)
}

// closeBody reads a little of what is left, so the connection can be reused, and closes the body.
func closeBody(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 4<<10))
	_ = body.Close()
}
