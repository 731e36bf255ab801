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

// A disk encryption set is checked by reading it (upstream:
// pkg/controllers/nodeclass/status/validation.go): readable is fine, 403 is a missing Reader role,
// a missing set is another error, and an ID that is not a disk encryption set's is refused.
func TestDiskEncryptionSet(t *testing.T) {
	sim := azuresim.New(azuresim.Options{})
	sim.AddDiskEncryptionSet("keys", "readable", true)
	sim.AddDiskEncryptionSet("keys", "denied", false)
	id := func(name string) string {
		return "/subscriptions/" + sim.SubscriptionID() + "/resourceGroups/keys/providers/Microsoft.Compute/diskEncryptionSets/" + name
	}
	tests := []struct {
		name, set    string
		wantAccess   bool   // the error wraps ErrDiskEncryptionSetAccess
		wantContains string // "" means no error
	}{
		{name: "readable", set: "readable"},
		{name: "no Reader role", set: "denied", wantAccess: true,
			wantContains: "no read access to the disk encryption set " + id("denied") + ": grant the controlling identity the Reader role on it"},
		{name: "missing", set: "gone", wantContains: "ResourceNotFound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			des, err := discovery.NewDiskEncryptionSet(discovery.DiskEncryptionSetOptions{ID: id(tt.set),
				Credential: sim.Credential(), ClientOptions: clientOptions(sim)})
			require.NoError(t, err)
			err = des.Check(context.Background())
			if tt.wantContains == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantContains)
			assert.Equal(t, tt.wantAccess, errors.Is(err, discovery.ErrDiskEncryptionSetAccess))
		})
	}
	_, err := discovery.NewDiskEncryptionSet(discovery.DiskEncryptionSetOptions{ID: "/subscriptions/s/resourceGroups/r/providers/Microsoft.Compute/disks/d"})
	assert.ErrorContains(t, err, `disk encryption set ID "/subscriptions/s/resourceGroups/r/providers/Microsoft.Compute/disks/d"`)
}
