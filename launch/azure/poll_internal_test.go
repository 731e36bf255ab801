package azure

import (
	"context"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch/azuresim"
)

// A throttled operation is polled until the caller's context ends, and no
// longer: polling is what a launch waits on, and its context bounds it.
func TestThrottledPollingEndsWithTheContext(t *testing.T) {
	sim := azuresim.New(azuresim.Options{OperationPolls: 1})
	opts := sim.ClientOptions()
	opts.Retry.RetryDelay, opts.Retry.MaxRetryDelay = time.Millisecond, time.Millisecond
	nics, err := armnetwork.NewInterfacesClient(sim.SubscriptionID(), sim.Credential(), opts)
	require.NoError(t, err)
	created, err := nics.BeginCreateOrUpdate(context.Background(), "rg", "nic-1",
		armnetwork.Interface{Location: to.Ptr(sim.Location()), Properties: &armnetwork.InterfacePropertiesFormat{
			IPConfigurations: []*armnetwork.InterfaceIPConfiguration{{Name: to.Ptr("ipconfig1"), Properties: &armnetwork.InterfaceIPConfigurationPropertiesFormat{
				Subnet: &armnetwork.Subnet{ID: to.Ptr("/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s")},
			}}},
		}}, nil)
	require.NoError(t, err)
	require.True(t, created.Done(), "the simulated NIC PUT answers Succeeded at once")
	sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpOperation, RetryAfter: time.Millisecond})
	poller, err := nics.BeginDelete(context.Background(), "rg", "nic-1", nil)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = pollUntilDone(ctx, poller, newPacer(time.Millisecond, math.Inf(1)))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Greater(t, len(sim.RequestsFor(azuresim.OpOperation, "nic-1")), 4, "polled past azcore's own retries")
}

// retryAfter prefers the millisecond headers, as azcore's retry policy does.
func TestRetryAfterHeaders(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 3 * time.Second},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"x-ms milliseconds first", map[string]string{"Retry-After": "7", "x-ms-retry-after-ms": "250"}, 250 * time.Millisecond},
		{"retry-after-ms first", map[string]string{"retry-after-ms": "40", "x-ms-retry-after-ms": "250"}, 40 * time.Millisecond},
		{"not a number", map[string]string{"Retry-After": "soon"}, 3 * time.Second},
		{"zero", map[string]string{"Retry-After": "0"}, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{Header: http.Header{}}
			for k, v := range tc.header {
				resp.Header.Set(k, v)
			}
			assert.Equal(t, tc.want, retryAfter(resp, 3*time.Second))
		})
	}
}
