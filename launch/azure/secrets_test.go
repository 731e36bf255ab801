package azure_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// customData reaches ARM in the VM body and nowhere else: not the log, not
// the error, not what ARM returns.
func TestCustomDataOnlyInTheVMBody(t *testing.T) {
	var logs bytes.Buffer
	f := newFixture(t, azuresim.Options{}, func(o *azure.Options) {
		o.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultZonalAllocationFailed, Count: 1})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultSkuNotAvailable, SKU: "Standard_D4s_v5"})
	inst, err := f.launcher.Create(context.Background(), request("secret-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.NoError(t, err)
	_, err = f.launcher.Create(context.Background(), request("secret-2", candidate("Standard_D4s_v5", 4, offering("westus2-1", launch.CapacityTypeOnDemand, 0.2))))
	require.Error(t, err)

	assert.Contains(t, logs.String(), "launch failed", "failures are logged")
	assert.NotContains(t, logs.String(), testCustomData)
	assert.NotContains(t, err.Error(), testCustomData)
	assert.NotContains(t, inst.String(), testCustomData)
	got, err := f.launcher.Get(context.Background(), inst.ProviderID)
	require.NoError(t, err)
	assert.NotContains(t, got.Tags, "customData")
	for _, r := range f.sim.Requests() {
		if r.Op != azuresim.OpVMPut {
			assert.NotContains(t, string(r.Body), testCustomData, "%s %s", r.Method, r.Path)
		}
	}
}
