package discovery_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/launch/azuresim"
	"github.com/napkit/napkit/launch/discovery"
	"github.com/napkit/napkit/quota"
)

var t0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// clientOptions are the simulator's, with retries quick enough for a unit test.
func clientOptions(sim *azuresim.Sim) *arm.ClientOptions {
	o := sim.ClientOptions()
	o.Retry = policy.RetryOptions{MaxRetries: 2, RetryDelay: time.Millisecond, MaxRetryDelay: 10 * time.Millisecond}
	return o
}

func ubuntuDefs(t *testing.T) []imagefamily.Definition {
	t.Helper()
	defs := imagefamily.Definitions(imagefamily.Ubuntu2204, imagefamily.VariantStandard)
	require.NotEmpty(t, defs)
	return defs[:1] // 2204gen2containerd
}

func newImages(t *testing.T, sim *azuresim.Sim, clk *clock) *discovery.Images {
	t.Helper()
	d, err := discovery.NewImages(discovery.ImagesOptions{SubscriptionID: sim.SubscriptionID(), SIGSubscriptionID: sim.SubscriptionID(),
		Location: sim.Location(), Credential: sim.Credential(), ClientOptions: clientOptions(sim), TTL: time.Hour, Clock: clk.Now})
	require.NoError(t, err)
	return d
}

func TestImageVersions(t *testing.T) {
	sim := azuresim.New(azuresim.Options{PageSize: 2})
	for i, v := range []string{"202610.01.0", "202611.01.0", "202612.01.0"} {
		sim.PublishImageVersion("2204gen2containerd", azuresim.ImageVersion{Version: v, PublishedAt: t0.AddDate(0, 0, 7*i)})
	}
	sim.PublishImageVersion("2204gen2containerd", azuresim.ImageVersion{Version: "202699.01.0", PublishedAt: t0, ExcludeFromLatest: true})
	clk := &clock{now: t0}
	d := newImages(t, sim, clk)
	ctx := context.Background()

	for _, gallery := range []imagefamily.GalleryKind{imagefamily.CommunityGallery, imagefamily.SharedImageGallery} {
		t.Run(string(gallery), func(t *testing.T) {
			got, err := d.Versions(ctx, gallery, imagefamily.Ubuntu2204, ubuntuDefs(t))
			require.NoError(t, err)
			assert.Equal(t, []imagefamily.AvailableVersion{
				{Definition: "2204gen2containerd", Version: "202610.01.0", PublishedAt: t0},
				{Definition: "2204gen2containerd", Version: "202611.01.0", PublishedAt: t0.AddDate(0, 0, 7)},
				{Definition: "2204gen2containerd", Version: "202612.01.0", PublishedAt: t0.AddDate(0, 0, 14)},
			}, got, "every page, without the version excluded from latest")
		})
	}
	paths := map[string]bool{}
	for _, r := range sim.Requests() {
		paths[r.Path] = true
	}
	assert.Contains(t, paths, "/subscriptions/"+sim.SubscriptionID()+"/providers/Microsoft.Compute/locations/"+sim.Location()+
		"/communityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions")
	assert.Contains(t, paths, "/subscriptions/"+sim.SubscriptionID()+"/resourceGroups/AKS-Ubuntu/providers/Microsoft.Compute/galleries/AKSUbuntu/images/2204gen2containerd/versions")

	// Within the TTL the answer is cached; after it, a newly published version is seen.
	calls := len(sim.RequestsFor(azuresim.OpImageVersionList, "2204gen2containerd"))
	sim.PublishImageVersion("2204gen2containerd", azuresim.ImageVersion{Version: "202701.01.0", PublishedAt: t0.AddDate(0, 1, 0)})
	got, err := d.Versions(ctx, imagefamily.CommunityGallery, imagefamily.Ubuntu2204, ubuntuDefs(t))
	require.NoError(t, err)
	assert.Len(t, got, 3)
	assert.Len(t, sim.RequestsFor(azuresim.OpImageVersionList, "2204gen2containerd"), calls, "served from the cache")
	clk.Add(time.Hour)
	got, err = d.Versions(ctx, imagefamily.CommunityGallery, imagefamily.Ubuntu2204, ubuntuDefs(t))
	require.NoError(t, err)
	assert.Equal(t, "202701.01.0", got[len(got)-1].Version)
}

func TestImageVersionsFaults(t *testing.T) {
	ctx := context.Background()
	t.Run("throttled once, then answered", func(t *testing.T) {
		sim := azuresim.New(azuresim.Options{})
		sim.PublishImageVersion("2204gen2containerd", azuresim.ImageVersion{Version: "202612.01.0", PublishedAt: t0})
		sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpImageVersionList, Count: 1, RetryAfter: time.Millisecond})
		got, err := newImages(t, sim, &clock{now: t0}).Versions(ctx, "", imagefamily.Ubuntu2204, ubuntuDefs(t))
		require.NoError(t, err)
		assert.Len(t, got, 1)
		statuses := []int{}
		for _, r := range sim.RequestsFor(azuresim.OpImageVersionList, "2204gen2containerd") {
			statuses = append(statuses, r.Status)
		}
		assert.Equal(t, []int{http.StatusTooManyRequests, http.StatusOK}, statuses)
	})
	t.Run("server errors: the error names the image, nothing is cached", func(t *testing.T) {
		sim := azuresim.New(azuresim.Options{})
		sim.PublishImageVersion("2204gen2containerd", azuresim.ImageVersion{Version: "202612.01.0", PublishedAt: t0})
		sim.Inject(azuresim.Fault{Kind: azuresim.FaultServerError, Op: azuresim.OpImageVersionList})
		d := newImages(t, sim, &clock{now: t0})
		_, err := d.Versions(ctx, "", imagefamily.Ubuntu2204, ubuntuDefs(t))
		require.Error(t, err)
		var re *azcore.ResponseError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, http.StatusInternalServerError, re.StatusCode)
		assert.Contains(t, err.Error(), "2204gen2containerd")
		sim.ClearFaults()
		got, err := d.Versions(ctx, "", imagefamily.Ubuntu2204, ubuntuDefs(t))
		require.NoError(t, err)
		assert.Len(t, got, 1, "the failure was not cached")
	})
	t.Run("empty answer", func(t *testing.T) {
		sim := azuresim.New(azuresim.Options{})
		got, err := newImages(t, sim, &clock{now: t0}).Versions(ctx, "", imagefamily.Ubuntu2204, ubuntuDefs(t))
		require.NoError(t, err)
		assert.Empty(t, got)
	})
	t.Run("no community gallery for Windows", func(t *testing.T) {
		sim := azuresim.New(azuresim.Options{})
		_, err := newImages(t, sim, &clock{now: t0}).Versions(ctx, "", imagefamily.Windows2022,
			imagefamily.Definitions(imagefamily.Windows2022, imagefamily.VariantStandard))
		require.ErrorIs(t, err, discovery.ErrNoGallery)
	})
}

func newUsage(t *testing.T, sim *azuresim.Sim, clk *clock) *discovery.Usage {
	t.Helper()
	u, err := discovery.NewUsage(discovery.UsageOptions{SubscriptionID: sim.SubscriptionID(), Location: sim.Location(),
		Credential: sim.Credential(), ClientOptions: clientOptions(sim), TTL: time.Minute, Clock: clk.Now})
	require.NoError(t, err)
	return u
}

func TestUsage(t *testing.T) {
	sim := azuresim.New(azuresim.Options{Quota: map[string]int{"standardDSv5Family": 10, "cores": 100, "lowPriorityCores": 50}})
	clk := &clock{now: t0}
	u := newUsage(t, sim, clk)
	got, at, err := u.List(context.Background())
	require.NoError(t, err)
	assert.Equal(t, t0, at)
	assert.Equal(t, []quota.Usage{{Name: "cores", Limit: 100}, {Name: "lowPriorityCores", Limit: 50},
		{Name: "standardDSv5Family", Limit: 10}}, got)
	_, _, err = u.List(context.Background())
	require.NoError(t, err)
	assert.Len(t, sim.RequestsFor(azuresim.OpUsageList, ""), 1, "cached for the TTL")

	sim.Inject(azuresim.Fault{Kind: azuresim.FaultServerError, Op: azuresim.OpUsageList})
	clk.Add(time.Minute)
	_, _, err = u.List(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "usages")

	empty := newUsage(t, azuresim.New(azuresim.Options{}), clk)
	got, _, err = empty.List(context.Background())
	require.NoError(t, err)
	assert.Empty(t, got)
}
