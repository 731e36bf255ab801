package azure_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
)

// armErr builds the *azcore.ResponseError the SDK returns for an ARM error body.
func armErr(status int, body string) error {
	resp := &http.Response{
		StatusCode: status,
		Status:     http.StatusText(status),
		Header:     http.Header{"Content-Type": {"application/json"}},
		Body:       io.NopCloser(bytes.NewBufferString(body)),
		Request:    &http.Request{Method: http.MethodPut, URL: &url.URL{Scheme: "https", Host: "management.azure.com", Path: "/vm"}},
	}
	return runtime.NewResponseError(resp)
}

func armCode(status int, code, message string) error {
	return armErr(status, fmt.Sprintf(`{"error":{"code":%q,"message":%q}}`, code, message))
}

func quotaMessage(what string, limit int) string {
	return fmt.Sprintf("Operation could not be completed as it results in exceeding approved %s quota. Additional details - Deployment Model: Resource Manager, Location: westus2, Current Limit: %d, Current Usage: %d, Additional Required: 4, (Minimum) New Limit Required: %d.", what, limit, limit, limit+4)
}

func d(sku string, vcpus int, zone, ct string) launch.Placement {
	return launch.Placement{SKU: sku, Family: "standardDSv5Family", VCPUs: vcpus, Zone: zone, CapacityType: ct}
}

// Reference table 3.4, row by row.
func TestClassifyError(t *testing.T) {
	spot, od := launch.CapacityTypeSpot, launch.CapacityTypeOnDemand
	d4 := candidate("Standard_D4s_v5", 4, zonal(0.2)...)
	choice := func(zone, ct string) launch.Choice {
		return launch.Choice{Candidate: d4, Offering: offering(zone, ct, 0.2)}
	}
	tests := []struct {
		name     string
		err      error
		tried    launch.Choice
		reason   launch.Reason
		is       []error
		isNot    []error
		ttl      time.Duration // 0: nothing is marked
		marked   []launch.Placement
		unmarked []launch.Placement
	}{
		{
			name: "LowPriorityCores blocks all spot", err: armCode(409, "OperationNotAllowed", quotaMessage("LowPriorityCores", 10)),
			tried: choice("westus2-1", spot), reason: launch.ReasonSubscriptionQuotaReached,
			is: []error{launch.ErrQuota, launch.ErrInsufficientCapacity}, ttl: time.Hour,
			marked:   []launch.Placement{d("Standard_E4s_v5", 4, "westus2-3", spot), d("Standard_D4s_v5", 4, "0", spot)},
			unmarked: []launch.Placement{d("Standard_D4s_v5", 4, "westus2-1", od)},
		},
		{
			name: "family quota at limit 0: SKU in every zone, 1h", err: armCode(409, "OperationNotAllowed", quotaMessage("standardDSv5Family Cores", 0)),
			tried: choice("westus2-1", od), reason: launch.ReasonSubscriptionQuotaReached,
			is: []error{launch.ErrQuota, launch.ErrInsufficientCapacity}, ttl: time.Hour,
			marked: []launch.Placement{
				d("Standard_D4s_v5", 4, "westus2-1", od), d("Standard_D4s_v5", 4, "westus2-3", od), d("Standard_D4s_v5", 4, "0", od),
				d("Standard_D8s_v5", 8, "westus2-2", od),
			},
			unmarked: []launch.Placement{d("Standard_D2s_v5", 2, "westus2-1", od), d("Standard_D4s_v5", 4, "westus2-1", spot)},
		},
		{
			name: "family quota above 0: 10 minutes", err: armCode(409, "OperationNotAllowed", quotaMessage("standardDSv5Family Cores", 100)),
			tried: choice("westus2-2", od), reason: launch.ReasonSubscriptionQuotaReached, ttl: 10 * time.Minute,
			marked: []launch.Placement{d("Standard_D4s_v5", 4, "westus2-1", od), d("Standard_D4s_v5", 4, "0", od)},
		},
		{
			name: "SkuNotAvailable on-demand: zonal scope, 23h", err: armCode(409, "SkuNotAvailable", "The requested VM size is currently not available"),
			tried: choice("westus2-2", od), reason: launch.ReasonSKUNotAvailable,
			is: []error{launch.ErrSKUNotAvailable, launch.ErrInsufficientCapacity}, ttl: 23 * time.Hour,
			marked:   []launch.Placement{d("Standard_D4s_v5", 4, "westus2-1", od), d("Standard_D4s_v5", 4, "westus2-3", od)},
			unmarked: []launch.Placement{d("Standard_D4s_v5", 4, "0", od), d("Standard_D4s_v5", 4, "westus2-2", spot)},
		},
		{
			name: "SkuNotAvailable spot: 1h", err: armCode(409, "SkuNotAvailable", "not available"),
			tried: choice("0", spot), reason: launch.ReasonSKUNotAvailable, ttl: time.Hour,
			marked:   []launch.Placement{d("Standard_D4s_v5", 4, "0", spot)},
			unmarked: []launch.Placement{d("Standard_D4s_v5", 4, "westus2-1", spot), d("Standard_D4s_v5", 4, "0", od)},
		},
		{
			name: "ZonalAllocationFailed: the zone, both capacity types", err: armCode(409, "ZonalAllocationFailed", "Allocation failed."),
			tried: choice("westus2-3", od), reason: launch.ReasonZonalAllocationFailure,
			is: []error{launch.ErrZonalAllocationFailed, launch.ErrInsufficientCapacity}, ttl: time.Hour,
			marked:   []launch.Placement{d("Standard_D4s_v5", 4, "westus2-3", od), d("Standard_D4s_v5", 4, "westus2-3", spot)},
			unmarked: []launch.Placement{d("Standard_D4s_v5", 4, "westus2-1", od), d("Standard_D4s_v5", 4, "0", od)},
		},
		{
			name: "AllocationFailed regional: regional scope only", err: armCode(409, "AllocationFailed", "Allocation failed."),
			tried: choice("0", od), reason: launch.ReasonAllocationFailure,
			is: []error{launch.ErrAllocationFailed, launch.ErrInsufficientCapacity}, ttl: time.Hour,
			marked:   []launch.Placement{d("Standard_D4s_v5", 4, "0", od), d("Standard_D4s_v5", 4, "0", spot)},
			unmarked: []launch.Placement{d("Standard_D4s_v5", 4, "westus2-1", od), d("Standard_D4s_v5", 4, "westus2-2", spot)},
		},
		{
			name: "AllocationFailed zonal: every zone, both capacity types", err: armCode(409, "AllocationFailed", "Allocation failed."),
			tried: choice("westus2-1", spot), reason: launch.ReasonAllocationFailure, ttl: time.Hour,
			marked:   []launch.Placement{d("Standard_D4s_v5", 4, "westus2-2", od), d("Standard_D4s_v5", 4, "westus2-3", spot)},
			unmarked: []launch.Placement{d("Standard_D4s_v5", 4, "0", od), d("Standard_D4s_v5", 4, "0", spot)},
		},
		{
			name: "OverconstrainedZonalAllocationRequest: zone and capacity type", err: armCode(409, "OverconstrainedZonalAllocationRequest", "too restrictive"),
			tried: choice("westus2-1", spot), reason: launch.ReasonOverconstrainedZonalAllocation,
			is: []error{launch.ErrOverconstrained, launch.ErrInsufficientCapacity}, ttl: time.Hour,
			marked:   []launch.Placement{d("Standard_D4s_v5", 4, "westus2-1", spot)},
			unmarked: []launch.Placement{d("Standard_D4s_v5", 4, "westus2-1", od), d("Standard_D4s_v5", 4, "westus2-2", spot)},
		},
		{
			name: "OverconstrainedAllocationRequest: capacity type in scope", err: armCode(409, "OverconstrainedAllocationRequest", "too restrictive"),
			tried: choice("westus2-1", od), reason: launch.ReasonOverconstrainedAllocation, ttl: time.Hour,
			marked:   []launch.Placement{d("Standard_D4s_v5", 4, "westus2-2", od), d("Standard_D4s_v5", 4, "westus2-3", od)},
			unmarked: []launch.Placement{d("Standard_D4s_v5", 4, "westus2-1", spot), d("Standard_D4s_v5", 4, "0", od)},
		},
		{
			name: "Total Regional Cores: insufficient capacity, nothing cached", err: armCode(409, "OperationNotAllowed", quotaMessage("Total Regional Cores", 100)),
			tried: choice("westus2-1", od), reason: launch.ReasonInsufficientCapacity,
			is: []error{launch.ErrInsufficientCapacity}, isNot: []error{launch.ErrQuota},
			unmarked: []launch.Placement{d("Standard_D4s_v5", 4, "westus2-1", od)},
		},
		{
			name:  "failed operation status is read like a sync error",
			err:   armErr(200, `{"status":"Failed","error":{"code":"AllocationFailed","message":"Allocation failed."}}`),
			tried: choice("0", od), reason: launch.ReasonAllocationFailure, ttl: time.Hour,
			marked: []launch.Placement{d("Standard_D4s_v5", 4, "0", spot)},
		},
		{
			name: "429 after azcore's retries: throttled", err: armCode(429, "TooManyRequests", "throttled"),
			tried: choice("westus2-1", od), reason: launch.ReasonThrottled,
			is: []error{launch.ErrThrottled}, isNot: []error{launch.ErrInsufficientCapacity},
			unmarked: []launch.Placement{d("Standard_D4s_v5", 4, "westus2-1", od)},
		},
		{
			name: "other OperationNotAllowed: cloud error", err: armCode(409, "OperationNotAllowed", "The VM is locked"),
			tried: choice("westus2-1", od), reason: launch.ReasonCloudError, is: []error{launch.ErrCloud},
		},
		{
			name: "500: cloud error", err: armCode(500, "InternalServerError", "boom"),
			tried: choice("westus2-1", od), reason: launch.ReasonCloudError, is: []error{launch.ErrCloud},
		},
		{
			name: "transport error: cloud error wrapping it", err: context.DeadlineExceeded,
			tried: choice("westus2-1", od), reason: launch.ReasonCloudError, is: []error{launch.ErrCloud, context.DeadlineExceeded},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			cache := launch.NewUnavailableOfferings(clock.Now)
			seq := cache.SeqNum()
			le := azure.ClassifyError(tt.err, "default-x", tt.tried, cache)
			require.NotNil(t, le)
			assert.Equal(t, tt.reason, le.Reason)
			assert.Equal(t, tt.tried.Candidate.SKU, le.SKU)
			assert.Equal(t, tt.tried.Offering.Zone, le.Zone)
			assert.Equal(t, tt.tried.Offering.CapacityType, le.CapacityType)
			for _, target := range tt.is {
				assert.ErrorIs(t, le, target)
			}
			for _, target := range tt.isNot {
				assert.NotErrorIs(t, le, target)
			}
			if _, isARM := errors.AsType[*azcore.ResponseError](tt.err); isARM {
				_, ok := errors.AsType[*azcore.ResponseError](le)
				assert.True(t, ok, "the ARM error stays reachable with errors.As")
			}
			if tt.ttl == 0 {
				assert.Equal(t, seq, cache.SeqNum(), "nothing marked")
			}
			for _, p := range tt.marked {
				assert.True(t, cache.IsUnavailable(p), "%s %s %s should be marked", p.SKU, p.Zone, p.CapacityType)
			}
			for _, p := range tt.unmarked {
				assert.False(t, cache.IsUnavailable(p), "%s %s %s should not be marked", p.SKU, p.Zone, p.CapacityType)
			}
			if tt.ttl > 0 {
				clock.Advance(tt.ttl - time.Second)
				assert.True(t, cache.IsUnavailable(tt.marked[0]), "still marked just before the TTL")
				clock.Advance(time.Second)
				assert.False(t, cache.IsUnavailable(tt.marked[0]), "expired at the TTL")
			}
		})
	}
}

func TestClassifyErrorKeepsLaunchError(t *testing.T) {
	le := &launch.LaunchError{Reason: launch.ReasonThrottled}
	assert.Same(t, le, azure.ClassifyError(fmt.Errorf("wrapped: %w", le), "x", launch.Choice{}, nil))
}

func TestLaunchErrorMessage(t *testing.T) {
	le := &launch.LaunchError{Reason: launch.ReasonZonalAllocationFailure, NodeClaimName: "default-x",
		SKU: "Standard_D4s_v5", Zone: "westus2-1", CapacityType: "spot", Err: errors.New("boom")}
	assert.Equal(t, `launch nodeclaim "default-x" as Standard_D4s_v5 spot in zone westus2-1: ZonalAllocationFailure: boom`, le.Error())
}
