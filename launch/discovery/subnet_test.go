package discovery_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch/azuresim"
	"github.com/napkit/napkit/launch/discovery"
)

// A subnet is checked by reading it (upstream: pkg/controllers/nodeclass/status/subnet.go): one
// that exists is fine, a missing one wraps ErrSubnetNotFound, an ID that does not parse is refused.
func TestSubnets(t *testing.T) {
	sim := azuresim.New(azuresim.Options{})
	sim.AddSubnet("net", "vnet", "nodes")
	id := func(name string) string {
		return "/subscriptions/" + sim.SubscriptionID() + "/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/" + name
	}
	subnets := discovery.NewSubnets(discovery.SubnetsOptions{Credential: sim.Credential(), ClientOptions: clientOptions(sim)})
	tests := []struct {
		name, id     string
		wantNotFound bool
		wantContains string // "" means no error
	}{
		{name: "exists", id: id("nodes")},
		{name: "missing", id: id("gone"), wantNotFound: true, wantContains: "subnet not found: " + id("gone")},
		{name: "not a subnet ID", id: "subnet-1", wantContains: `subnet ID: want /subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet>, got "subnet-1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := subnets.Check(context.Background(), tt.id)
			if tt.wantContains == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantContains)
			assert.Equal(t, tt.wantNotFound, errors.Is(err, discovery.ErrSubnetNotFound))
		})
	}
}
