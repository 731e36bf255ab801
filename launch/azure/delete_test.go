package azure_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

func launched(t *testing.T, f *fixture, names ...string) []*launch.Instance {
	t.Helper()
	var out []*launch.Instance
	for _, n := range names {
		inst, err := f.launcher.Create(context.Background(), request(n, candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
		require.NoError(t, err)
		out = append(out, inst)
	}
	return out
}

func TestDelete(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	inst := launched(t, f, "del-1")[0]
	require.NoError(t, f.launcher.Delete(context.Background(), inst.ProviderID))
	assert.Empty(t, f.sim.VMNames())
	assert.Empty(t, f.sim.NICNames())
	deletes := f.sim.RequestsFor(azuresim.OpVMDelete, "aks-del-1")
	require.Len(t, deletes, 1)
	assert.Equal(t, "true", deletes[0].Query.Get("forceDeletion"))
	assert.Len(t, f.sim.RequestsFor(azuresim.OpNICDelete, "aks-del-1"), 1, "the NIC is deleted after the VM")

	require.NoError(t, f.launcher.Delete(context.Background(), inst.ProviderID), "deleting a gone VM is success")
}

func TestDeleteRemovesOrphanNICOfMissingVM(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultCrashAfterNIC, Name: "aks-del-2", Count: 1})
	_, err := f.launcher.Create(context.Background(), request("del-2", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.Error(t, err)
	f.sim.Reconnect()
	require.Equal(t, []string{"aks-del-2"}, f.sim.NICNames())
	require.NoError(t, f.launcher.Delete(context.Background(), azure.ProviderID(f.sim.SubscriptionID(), testRG, "aks-del-2")))
	assert.Empty(t, f.sim.NICNames())
}

func TestDeleteLeavesDeletingVMAlone(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	inst := launched(t, f, "del-3")[0]
	require.True(t, f.sim.SetVMState(testRG, "aks-del-3", "Deleting"))
	require.NoError(t, f.launcher.Delete(context.Background(), inst.ProviderID))
	assert.Empty(t, f.sim.RequestsFor(azuresim.OpVMDelete, "aks-del-3"))
	assert.Empty(t, f.sim.RequestsFor(azuresim.OpNICDelete, "aks-del-3"))
}

func TestDeleteAndGetRejectBadProviderIDs(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	for _, id := range []string{
		"azure:///subscriptions/other/resourceGroups/" + testRG + "/providers/Microsoft.Compute/virtualMachines/aks-x",
		"azure:///subscriptions/" + azuresim.DefaultSubscriptionID + "/resourceGroups/other/providers/Microsoft.Compute/virtualMachines/aks-x",
		"not-a-provider-id",
	} {
		err := f.launcher.Delete(context.Background(), id)
		require.ErrorIs(t, err, launch.ErrInvalidProviderID)
		assert.Contains(t, err.Error(), id)
		_, err = f.launcher.Get(context.Background(), id)
		require.ErrorIs(t, err, launch.ErrInvalidProviderID)
		assert.Contains(t, err.Error(), id)
	}
	assert.Empty(t, f.sim.Requests())
}

func TestDeleteReportsARMFailures(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	inst := launched(t, f, "del-4")[0]
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpVMDelete, RetryAfter: time.Millisecond})
	err := f.launcher.Delete(context.Background(), inst.ProviderID)
	require.ErrorIs(t, err, launch.ErrThrottled)
	assert.Equal(t, []string{"aks-del-4"}, f.sim.VMNames())
}
