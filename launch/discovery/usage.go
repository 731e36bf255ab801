package discovery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"

	"github.com/napkit/napkit/quota"
)

// UsageTTL is how long the region's usages are reused (upstream: pkg/controllers/quota
// RefreshInterval, 10 minutes); MaxStaleness is how long a caller should keep using the last
// good answer while refreshes fail, after which it should fail open (upstream: MaxStaleness).
const (
	UsageTTL     = 10 * time.Minute
	MaxStaleness = UsageTTL + 5*time.Minute
)

// UsageOptions configure Usage.
type UsageOptions struct {
	SubscriptionID, Location string
	Credential               azcore.TokenCredential
	ClientOptions            *arm.ClientOptions
	// TTL overrides UsageTTL; Clock is time.Now when nil.
	TTL   time.Duration
	Clock func() time.Time
}

// Usage lists the region's compute usages and limits (vCPUs per family, regional totals).
type Usage struct {
	opts   UsageOptions
	client *armcompute.UsageClient
	cache  *ttlCache[[]quota.Usage]
}

// NewUsage builds the client; it makes no call.
func NewUsage(o UsageOptions) (*Usage, error) {
	if o.SubscriptionID == "" || o.Location == "" {
		return nil, errors.New("discovery: SubscriptionID and Location are required")
	}
	if o.TTL <= 0 {
		o.TTL = UsageTTL
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	client, err := armcompute.NewUsageClient(o.SubscriptionID, o.Credential, o.ClientOptions)
	if err != nil {
		return nil, fmt.Errorf("usage client: %w", err)
	}
	return &Usage{opts: o, client: client, cache: newTTLCache[[]quota.Usage](o.TTL, o.Clock)}, nil
}

// List returns the usages and when they were fetched, from the cache while it is fresh. Entries
// without a name, limit or current value are left out.
func (u *Usage) List(ctx context.Context) ([]quota.Usage, time.Time, error) {
	if list, at, ok := u.cache.get(u.opts.Location); ok {
		return list, at, nil
	}
	var out []quota.Usage
	pager := u.client.NewListPager(u.opts.Location, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("discovery: list compute usages in %s: %w", u.opts.Location, err)
		}
		for _, v := range page.Value {
			if v == nil || v.Name == nil || v.Name.Value == nil || v.Limit == nil || v.CurrentValue == nil {
				continue
			}
			out = append(out, quota.Usage{Name: *v.Name.Value, Current: int64(*v.CurrentValue), Limit: *v.Limit})
		}
	}
	return out, u.cache.put(u.opts.Location, out), nil
}
