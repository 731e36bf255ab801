package azuresim_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch/azuresim"
)

// Headers ARM's throttling uses.
const (
	remainingReads   = "x-ms-ratelimit-remaining-subscription-reads"
	remainingWrites  = "x-ms-ratelimit-remaining-subscription-writes"
	remainingDeletes = "x-ms-ratelimit-remaining-subscription-deletes"
)

// limitedSim is a Sim with limits whose clock the test moves with advance.
func limitedSim(limits *azuresim.RateLimits) (sim *azuresim.Sim, advance func(time.Duration)) {
	now := time.Unix(1_000_000, 0)
	sim = azuresim.New(azuresim.Options{RateLimits: limits, Clock: func() time.Time { return now }})
	return sim, func(d time.Duration) { now = now.Add(d) }
}

// send makes one ARM call of method on VM x.
func send(t *testing.T, sim *azuresim.Sim, method string, auth bool) *http.Response {
	t.Helper()
	resp, err := sim.Do(armRequest(t, sim, method, auth))
	require.NoError(t, err)
	return resp
}

// armRequest is a call of method on VM x; a write sends an empty VM body.
func armRequest(t *testing.T, sim *azuresim.Sim, method string, auth bool) *http.Request {
	t.Helper()
	body := strings.NewReader("")
	if method == http.MethodPut || method == http.MethodPatch {
		body = strings.NewReader("{}")
	}
	req, err := http.NewRequest(method, "https://management.azure.com/subscriptions/"+sim.SubscriptionID()+
		"/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/x?api-version=2025-04-01", body)
	require.NoError(t, err)
	if auth {
		req.Header.Set("Authorization", "Bearer "+azuresim.Token)
	}
	return req
}

// assertThrottled checks a bucket's 429: the operation type named, Retry-After
// in whole seconds rounded up, the exact wait in milliseconds.
func assertThrottled(t *testing.T, resp *http.Response, opType, retryAfter, retryMS string) {
	t.Helper()
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, retryAfter, resp.Header.Get("Retry-After"))
	assert.Equal(t, retryMS, resp.Header.Get("x-ms-retry-after-ms"))
	for _, h := range []string{remainingReads, remainingWrites, remainingDeletes} {
		assert.Empty(t, resp.Header.Get(h), "a throttled call took no token")
	}
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), `"code":"TooManyRequests"`)
	assert.Contains(t, string(body), "limit has been reached for operation type - "+opType+".")
}

// TestRateLimitBucket: a bucket of N serves N calls, counting the remaining
// tokens down, then answers 429 with Retry-After the time until a token is back.
func TestRateLimitBucket(t *testing.T) {
	tests := []struct {
		name, method, opType, header string
		limits                       azuresim.RateLimits
		bucket                       int
		retryAfter, retryMS          string
	}{
		{"reads", http.MethodGet, "Read", remainingReads,
			azuresim.RateLimits{Reads: azuresim.RateLimit{Bucket: 3, RefillPerSecond: 4}}, 3, "1", "250"},
		{"writes", http.MethodPut, "Write", remainingWrites,
			azuresim.RateLimits{Writes: azuresim.RateLimit{Bucket: 2, RefillPerSecond: 0.4}}, 2, "3", "2500"},
		{"patches are writes", http.MethodPatch, "Write", remainingWrites,
			azuresim.RateLimits{Writes: azuresim.RateLimit{Bucket: 1, RefillPerSecond: 1}}, 1, "1", "1000"},
		{"deletes", http.MethodDelete, "Delete", remainingDeletes,
			azuresim.RateLimits{Deletes: azuresim.RateLimit{Bucket: 2, RefillPerSecond: 10}}, 2, "1", "100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sim, _ := limitedSim(&tc.limits)
			for i := range tc.bucket {
				resp := send(t, sim, tc.method, true)
				assert.NotEqual(t, http.StatusTooManyRequests, resp.StatusCode, "call %d", i)
				assert.Equal(t, strconv.Itoa(tc.bucket-1-i), resp.Header.Get(tc.header), "call %d", i)
			}
			assertThrottled(t, send(t, sim, tc.method, true), tc.opType, tc.retryAfter, tc.retryMS)
		})
	}
}

// TestRateLimitRefill: the bucket refills by the simulator's clock at its rate,
// up to its size, and the Retry-After shrinks as the clock moves.
func TestRateLimitRefill(t *testing.T) {
	sim, advance := limitedSim(&azuresim.RateLimits{Reads: azuresim.RateLimit{Bucket: 2, RefillPerSecond: 10}})
	steps := []struct {
		name      string
		advance   time.Duration
		remaining string // "" for a 429
		retryMS   string
	}{
		{name: "full", remaining: "1"},
		{name: "last token", remaining: "0"},
		{name: "empty", retryMS: "100"},
		{name: "half a token", advance: 50 * time.Millisecond, retryMS: "50"},
		{name: "a token", advance: 50 * time.Millisecond, remaining: "0"},
		{name: "refill stops at the bucket size", advance: time.Hour, remaining: "1"},
		{name: "clock stopped", remaining: "0"},
		{name: "clock stepping back refills nothing", advance: -time.Hour, retryMS: "100"},
	}
	for _, step := range steps {
		advance(step.advance)
		resp := send(t, sim, http.MethodGet, true)
		if step.remaining == "" {
			assertThrottled(t, resp, "Read", "1", step.retryMS)
			continue
		}
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, step.name)
		assert.Equal(t, step.remaining, resp.Header.Get(remainingReads), step.name)
	}
	assert.Equal(t, azuresim.RateCounts{Reads: azuresim.ClassCount{Served: 5, Throttled: 3}}, sim.RateLimited())
}

// TestRateLimitClassesIndependent: each operation type has its own bucket; spent
// reads do not stop a PUT or a DELETE, and each reports only its own tokens.
func TestRateLimitClassesIndependent(t *testing.T) {
	one := azuresim.RateLimit{Bucket: 1, RefillPerSecond: 1}
	sim, _ := limitedSim(&azuresim.RateLimits{Reads: one, Writes: one, Deletes: one})
	calls := []struct {
		method, opType, header string
		throttled              bool
	}{
		{http.MethodGet, "Read", remainingReads, false},
		{http.MethodGet, "Read", remainingReads, true},
		{http.MethodPut, "Write", remainingWrites, false},
		{http.MethodDelete, "Delete", remainingDeletes, false},
		{http.MethodPatch, "Write", remainingWrites, true},
		{http.MethodDelete, "Delete", remainingDeletes, true},
	}
	for i, c := range calls {
		resp := send(t, sim, c.method, true)
		if c.throttled {
			assertThrottled(t, resp, c.opType, "1", "1000")
			continue
		}
		assert.NotEqual(t, http.StatusTooManyRequests, resp.StatusCode, "call %d", i)
		assert.Equal(t, "0", resp.Header.Get(c.header), "call %d", i)
		for _, h := range []string{remainingReads, remainingWrites, remainingDeletes} {
			if h != c.header {
				assert.Empty(t, resp.Header.Get(h), "call %d", i)
			}
		}
	}
	served := azuresim.ClassCount{Served: 1, Throttled: 1}
	assert.Equal(t, azuresim.RateCounts{Reads: served, Writes: served, Deletes: served}, sim.RateLimited())
}

// TestRateLimitUnlimited: nil RateLimits (the default) limits nothing, adds no
// header and counts nothing; a zero RateLimit leaves its class unlimited, without
// a remaining header, but counted.
func TestRateLimitUnlimited(t *testing.T) {
	tests := []struct {
		name   string
		limits *azuresim.RateLimits
		counts azuresim.RateCounts
	}{
		{"nil RateLimits", nil, azuresim.RateCounts{}},
		{"zero RateLimit", &azuresim.RateLimits{Writes: azuresim.RateLimit{Bucket: 1, RefillPerSecond: 1}},
			azuresim.RateCounts{Reads: azuresim.ClassCount{Served: 300}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sim, _ := limitedSim(tc.limits)
			for i := range 300 {
				resp := send(t, sim, http.MethodGet, true)
				require.Equal(t, http.StatusNotFound, resp.StatusCode, "call %d", i)
				require.Empty(t, resp.Header.Get(remainingReads), "call %d", i)
			}
			assert.Equal(t, tc.counts, sim.RateLimited())
		})
	}
}

// TestRateLimitRetailPrices: the Retail Prices API is not ARM, so no bucket
// applies to it, and it spends none of ARM's read tokens.
func TestRateLimitRetailPrices(t *testing.T) {
	sim, _ := limitedSim(&azuresim.RateLimits{Reads: azuresim.RateLimit{Bucket: 1, RefillPerSecond: 1}})
	for i := range 3 {
		resp, err := sim.HTTPClient().Get("https://prices.azure.com/api/retail/prices?$filter=armRegionName%20eq%20'eastus'")
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "call %d", i)
		assert.Empty(t, resp.Header.Get(remainingReads), "call %d", i)
	}
	assert.Equal(t, azuresim.RateCounts{}, sim.RateLimited())
	assert.Equal(t, "0", send(t, sim, http.MethodGet, true).Header.Get(remainingReads), "ARM's read token is still there")
}

// TestRateLimitUnauthenticated: ARM throttles per principal, so a call without
// a credential is refused 401 before it reaches a bucket and takes no token.
func TestRateLimitUnauthenticated(t *testing.T) {
	sim, _ := limitedSim(&azuresim.RateLimits{Reads: azuresim.RateLimit{Bucket: 1, RefillPerSecond: 1}})
	for range 2 {
		resp := send(t, sim, http.MethodGet, false)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		assert.Empty(t, resp.Header.Get(remainingReads))
	}
	assert.Equal(t, azuresim.RateCounts{}, sim.RateLimited())
	assert.Equal(t, "0", send(t, sim, http.MethodGet, true).Header.Get(remainingReads))
}

// TestRateLimitConcurrent: concurrent callers share one bucket exactly; with
// no refill, a bucket of 20 serves 20 calls in all.
func TestRateLimitConcurrent(t *testing.T) {
	sim, _ := limitedSim(&azuresim.RateLimits{Reads: azuresim.RateLimit{Bucket: 20}})
	var wg sync.WaitGroup
	for range 50 {
		req := armRequest(t, sim, http.MethodGet, true)
		wg.Go(func() {
			_, err := sim.Do(req)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.Equal(t, azuresim.RateCounts{Reads: azuresim.ClassCount{Served: 20, Throttled: 30}}, sim.RateLimited())
	assertThrottled(t, send(t, sim, http.MethodGet, true), "Read", "3600", "3600000")
}

// TestARMSubscriptionLimits: ARM's regional token buckets per subscription, from
// "Regional throttling and token bucket algorithm" in
// https://learn.microsoft.com/azure/azure-resource-manager/management/request-limits-and-throttling:
// reads 250 refilled at 25/s, writes and deletes 200 at 10/s.
func TestARMSubscriptionLimits(t *testing.T) {
	limits := azuresim.ARMSubscriptionLimits()
	assert.Equal(t, azuresim.RateLimits{
		Reads:   azuresim.RateLimit{Bucket: 250, RefillPerSecond: 25},
		Writes:  azuresim.RateLimit{Bucket: 200, RefillPerSecond: 10},
		Deletes: azuresim.RateLimit{Bucket: 200, RefillPerSecond: 10},
	}, limits)
	tests := []struct {
		method, opType string
		bucket         int
		retryMS        string
	}{
		{http.MethodGet, "Read", 250, "40"},
		{http.MethodPut, "Write", 200, "100"},
		{http.MethodDelete, "Delete", 200, "100"},
	}
	for _, tc := range tests {
		t.Run(tc.opType, func(t *testing.T) {
			sim, advance := limitedSim(&limits)
			for i := range tc.bucket {
				require.NotEqual(t, http.StatusTooManyRequests, send(t, sim, tc.method, true).StatusCode, "call %d", i)
			}
			assertThrottled(t, send(t, sim, tc.method, true), tc.opType, "1", tc.retryMS)
			advance(time.Second)
			assert.NotEqual(t, http.StatusTooManyRequests, send(t, sim, tc.method, true).StatusCode, "refilled after a second")
		})
	}
}

// TestRateLimitThroughSDK: the real armcompute client, retries off (MaxRetries
// -1 is one try and no retries in azcore), sees ARM's 429 as a
// *azcore.ResponseError, and the record keeps the 429.
func TestRateLimitThroughSDK(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	sim := azuresim.New(azuresim.Options{Clock: func() time.Time { return now },
		RateLimits: &azuresim.RateLimits{Reads: azuresim.RateLimit{Bucket: 1, RefillPerSecond: 0.5}}})
	co := sim.ClientOptions()
	co.Retry.MaxRetries = -1
	vms, err := armcompute.NewVirtualMachinesClient(sim.SubscriptionID(), sim.Credential(), co)
	require.NoError(t, err)

	_, err = vms.Get(context.Background(), rg, "x", nil)
	_, status := armCode(t, err)
	assert.Equal(t, http.StatusNotFound, status, "the first read took the token")

	_, err = vms.Get(context.Background(), rg, "x", nil)
	re, ok := errors.AsType[*azcore.ResponseError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, http.StatusTooManyRequests, re.StatusCode)
	assert.Equal(t, "TooManyRequests", re.ErrorCode)
	assert.Equal(t, "2", re.RawResponse.Header.Get("Retry-After"))

	var statuses []int
	for _, r := range sim.RequestsFor(azuresim.OpVMGet, "x") {
		statuses = append(statuses, r.Status)
	}
	assert.Equal(t, []int{http.StatusNotFound, http.StatusTooManyRequests}, statuses, "recorded, not retried")
}

// TestRateLimitUnmetered: the simulation's own observers (simulated kubelets
// listing VMs) would not call ARM on Azure, so their calls, marked through
// UnmeteredClientOptions' policy, take no token and are not counted.
func TestRateLimitUnmetered(t *testing.T) {
	sim, _ := limitedSim(&azuresim.RateLimits{Reads: azuresim.RateLimit{Bucket: 1, RefillPerSecond: 1}})
	vms, err := armcompute.NewVirtualMachinesClient(sim.SubscriptionID(), sim.Credential(), sim.UnmeteredClientOptions())
	require.NoError(t, err)
	for range 3 {
		_, err := vms.Get(context.Background(), "rg", "x", nil)
		var re *azcore.ResponseError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, http.StatusNotFound, re.StatusCode, "served, not throttled")
	}
	assert.Equal(t, azuresim.RateCounts{}, sim.RateLimited())
	assert.Equal(t, "0", send(t, sim, http.MethodGet, true).Header.Get(remainingReads), "ARM's read token is still there")
}
