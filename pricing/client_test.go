package pricing

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const wantFilter = "priceType eq 'Consumption' and currencyCode eq 'USD' and serviceFamily eq 'Compute'" +
	" and serviceName eq 'Virtual Machines' and armRegionName eq 'eastus'"

// threePages is an eastus answer over three pages with every kind of item the client must sort.
func threePages() []fakePage {
	return []fakePage{
		{items: []map[string]any{
			linux("eastus", "Standard_D2s_v3", "D2s v3", 0.096),
			windows("eastus", "Standard_D2s_v3", "D2s v3", 0.188),
			lowPriority("eastus", "Standard_D2s_v3", "D2s v3", 0.0192),
			spotItem("eastus", "Standard_D2s_v3", "D2s v3", 0.0106),
			linux("eastus", "Standard_D2as_v5", "D2as v5", 0.178), // a leaked licensed meter ...
		}},
		{items: []map[string]any{
			linux("eastus", "Standard_D2as_v5", "D2as v5", 0.086), // ... and the Linux one: lowest wins
			linux("eastus", "Standard_D4s_v5", "D4s v5", 0.192),
			spotItem("eastus", "Standard_D4s_v5", "D4s v5", 0.02112),
			spotItem("eastus", "Standard_SpotOnly", "SpotOnly", 0.01), // no on-demand price: left out
			linux("eastus", "Standard_Placeholder", "Placeholder", 0), // zero-priced: left out
		}},
		{items: []map[string]any{
			linux("eastus", "Standard_NM16ads_MA35D  ", "NM16ads MA35D", 1.95), // trailing spaces, as the API has them
			windows("eastus", "Standard_WindowsOnly", "WindowsOnly", 0.5),
		}},
	}
}

func TestFetch(t *testing.T) {
	api := newFakeAPI(t, map[string][]fakePage{"eastus": threePages()})
	got, err := api.client(t, ClientOptions{}).Fetch(context.Background(), "EastUS")
	require.NoError(t, err)
	assert.Equal(t, map[string]Price{
		"Standard_D2s_v3":        {OnDemand: 0.096, Spot: 0.0106, SpotKnown: true},
		"Standard_D2as_v5":       {OnDemand: 0.086, Spot: 0.086},
		"Standard_D4s_v5":        {OnDemand: 0.192, Spot: 0.02112, SpotKnown: true},
		"Standard_NM16ads_MA35D": {OnDemand: 1.95, Spot: 1.95},
	}, got)

	reqs := api.requestLog()
	require.Len(t, reqs, 3, "one request per page")
	first := reqs[0]
	assert.Equal(t, http.MethodGet, first.Method)
	assert.Equal(t, "/api/retail/prices", first.URL.Path)
	assert.Equal(t, APIVersion, first.URL.Query().Get("api-version"))
	assert.Equal(t, wantFilter, first.URL.Query().Get("$filter"))
	assert.True(t, strings.HasPrefix(first.URL.RawQuery,
		"api-version=2023-01-01-preview&$filter=priceType%20eq%20%27Consumption%27%20and%20"),
		"raw query %q", first.URL.RawQuery)
	assert.Equal(t, "1", reqs[1].URL.Query().Get("page"), "the second request follows NextPageLink")
	assert.Equal(t, "2", reqs[2].URL.Query().Get("page"))
}

func TestFetchEmptyAnswer(t *testing.T) {
	api := newFakeAPI(t, nil)
	got, err := api.client(t, ClientOptions{}).Fetch(context.Background(), "westus2")
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestFetchRelativeNextPageLink(t *testing.T) {
	pages := []fakePage{
		{raw: `{"Items":[],"NextPageLink":"/api/retail/prices?region=eastus&page=1"}`},
		{items: []map[string]any{linux("eastus", "Standard_D2s_v3", "D2s v3", 0.096)}},
	}
	api := newFakeAPI(t, map[string][]fakePage{"eastus": pages})
	got, err := api.client(t, ClientOptions{}).Fetch(context.Background(), "eastus")
	require.NoError(t, err)
	assert.Equal(t, map[string]Price{"Standard_D2s_v3": {OnDemand: 0.096, Spot: 0.096}}, got)
}

func TestFetchErrors(t *testing.T) {
	good := fakePage{items: []map[string]any{linux("eastus", "Standard_D2s_v3", "D2s v3", 0.096)}}
	tests := []struct {
		name      string
		pages     []fakePage
		region    string
		opts      ClientOptions
		wantIs    error
		wantInMsg []string
	}{
		{name: "malformed second page", region: "eastus", pages: []fakePage{good, {raw: `{"Items": [ {"armSkuName": `}},
			wantIs: ErrMalformed, wantInMsg: []string{"region eastus page 2"}},
		{name: "items of the wrong type", region: "eastus", pages: []fakePage{{raw: `{"Items": {"a": 1}}`}},
			wantIs: ErrMalformed, wantInMsg: []string{"page 1"}},
		{name: "empty body", region: "eastus", pages: []fakePage{{raw: " "}}, wantIs: ErrMalformed},
		{name: "bad NextPageLink", region: "eastus", pages: []fakePage{{raw: `{"Items":[],"NextPageLink":"http://%zz"}`}},
			wantIs: ErrMalformed, wantInMsg: []string{"page 1", "NextPageLink"}},
		{name: "timeout", region: "eastus", pages: []fakePage{good, {block: true}}, opts: ClientOptions{Timeout: 50 * time.Millisecond},
			wantIs: context.DeadlineExceeded, wantInMsg: []string{"page 2"}},
		{name: "endless pages", region: "eastus", pages: []fakePage{good, good, good, good}, opts: ClientOptions{MaxPages: 3},
			wantIs: ErrTooManyPages},
		{name: "invalid region", region: "east us' or 1 eq 1", wantIs: ErrInvalidRegion},
		{name: "empty region", region: "", wantIs: ErrInvalidRegion},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI(t, map[string][]fakePage{"eastus": tc.pages})
			got, err := api.client(t, tc.opts).Fetch(context.Background(), tc.region)
			require.ErrorIs(t, err, tc.wantIs)
			assert.Nil(t, got)
			for _, s := range tc.wantInMsg {
				assert.Contains(t, err.Error(), s)
			}
			if errors.Is(tc.wantIs, ErrInvalidRegion) {
				assert.Empty(t, api.requestLog(), "no request for an invalid region")
			}
		})
	}
}

func TestFetchStatusError(t *testing.T) {
	body := `{"error":{"code":"InternalServerError","message":"` + strings.Repeat("x", 10000) + `"}}`
	api := newFakeAPI(t, map[string][]fakePage{"eastus": {
		{items: []map[string]any{linux("eastus", "Standard_D2s_v3", "D2s v3", 0.096)}},
		{status: http.StatusInternalServerError, raw: body},
	}})
	_, err := api.client(t, ClientOptions{}).Fetch(context.Background(), "eastus")
	var se *StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusInternalServerError, se.StatusCode)
	assert.Equal(t, 2, se.Page)
	assert.Equal(t, "eastus", se.Region)
	assert.True(t, strings.HasPrefix(se.Excerpt, `{"error":{"code":"InternalServerError"`), se.Excerpt)
	assert.LessOrEqual(t, len(se.Excerpt), maxExcerpt+3, "the body is cut to a short excerpt")
	assert.Contains(t, err.Error(), "HTTP 500 Internal Server Error")
	assert.NotErrorIs(t, err, ErrMalformed)
}

func TestFetchCallerContext(t *testing.T) {
	api := newFakeAPI(t, map[string][]fakePage{"eastus": {{block: true}}})
	c := api.client(t, ClientOptions{})

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Fetch(ctx, "eastus")
	require.ErrorIs(t, err, context.DeadlineExceeded)

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	_, err = c.Fetch(ctx, "eastus")
	require.ErrorIs(t, err, context.Canceled)
}

func TestExcerpt(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  Too many\r\n requests\t", "Too many requests"},
		{"a\x00b\x1bc", "a b c"},
		{strings.Repeat("é", 200), strings.Repeat("é", maxExcerpt) + "..."},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, excerpt([]byte(tc.in)), "excerpt(%q)", tc.in)
	}
}

func TestNewClient(t *testing.T) {
	tests := []struct {
		name    string
		opts    ClientOptions
		wantErr bool
	}{
		{name: "defaults", opts: ClientOptions{}},
		{name: "custom", opts: ClientOptions{BaseURL: "http://127.0.0.1:8080/prices", Timeout: time.Second, MaxPages: 5}},
		{name: "relative URL", opts: ClientOptions{BaseURL: "/prices"}, wantErr: true},
		{name: "other scheme", opts: ClientOptions{BaseURL: "ftp://prices.azure.com/x"}, wantErr: true},
		{name: "query in BaseURL", opts: ClientOptions{BaseURL: DefaultBaseURL + "?api-version=1"}, wantErr: true},
		{name: "unparsable URL", opts: ClientOptions{BaseURL: "http://%zz"}, wantErr: true},
		{name: "negative timeout", opts: ClientOptions{Timeout: -time.Second}, wantErr: true},
		{name: "negative pages", opts: ClientOptions{MaxPages: -1}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewClient(tc.opts)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Positive(t, c.timeout)
			assert.Positive(t, c.maxPages)
			assert.NotNil(t, c.http)
		})
	}
}
