package azure_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

func TestCollectGarbage(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	launched(t, f, "owned-1", "orphan-old", "orphan-young")
	// An orphan NIC left by a crash, aged like the VMs.
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultCrashAfterNIC, Name: "aks-crashed-old", Count: 1})
	_, err := f.launcher.Create(context.Background(), request("crashed-old", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.Error(t, err)
	f.sim.Reconnect()

	start := f.clock.Now()
	f.clock.Advance(10 * time.Minute)
	require.True(t, f.sim.SetVMCreated(testRG, "aks-orphan-young", f.clock.Now().Add(-time.Minute)))
	// A fresh crash orphan: its NIC creation tag is within the grace period.
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultCrashAfterNIC, Name: "aks-crashed-young", Count: 1})
	_, err = f.launcher.Create(context.Background(), request("crashed-young", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.Error(t, err)
	f.sim.Reconnect()
	// Resources that are not this cluster's are never touched.
	putForeignNIC(t, f.sim, "aks-foreign", map[string]*string{azure.TagCluster: to.Ptr("other")})
	putForeignNIC(t, f.sim, "unmanaged", nil)

	owned := func(nodeClaim string) bool { return nodeClaim == "owned-1" }
	res, err := f.launcher.CollectGarbage(context.Background(), owned, 5*time.Minute, f.clock.Now())
	require.NoError(t, err)
	assert.Equal(t, []string{"aks-orphan-old"}, res.DeletedVMs)
	assert.Equal(t, []string{"aks-crashed-old"}, res.DeletedNICs)
	assert.Equal(t, []string{"aks-orphan-young", "aks-owned-1"}, f.sim.VMNames())
	assert.Equal(t, []string{"aks-crashed-young", "aks-foreign", "aks-orphan-young", "aks-owned-1", "unmanaged"}, f.sim.NICNames())
	assert.True(t, start.Before(f.clock.Now()))

	f.clock.Advance(5 * time.Minute)
	res, err = f.launcher.CollectGarbage(context.Background(), owned, 5*time.Minute, f.clock.Now())
	require.NoError(t, err)
	assert.Equal(t, []string{"aks-orphan-young"}, res.DeletedVMs)
	assert.Equal(t, []string{"aks-crashed-young"}, res.DeletedNICs)
	assert.Equal(t, []string{"aks-owned-1"}, f.sim.VMNames())
	assert.True(t, slices.Equal([]string{"aks-foreign", "aks-owned-1", "unmanaged"}, f.sim.NICNames()), f.sim.NICNames())
}

func TestCollectGarbageNeedsOwned(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	_, err := f.launcher.CollectGarbage(context.Background(), nil, 0, time.Now())
	assert.ErrorIs(t, err, launch.ErrInvalidOptions)
}

func TestCollectGarbageReportsFailuresAndGoesOn(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	launched(t, f, "gc-a", "gc-b")
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultServerError, Op: azuresim.OpVMDelete, Name: "aks-gc-a"})
	res, err := f.launcher.CollectGarbage(context.Background(), func(string) bool { return false }, 0, f.clock.Now())
	require.ErrorIs(t, err, launch.ErrCloud)
	assert.Contains(t, err.Error(), "aks-gc-a")
	assert.Equal(t, []string{"aks-gc-b"}, res.DeletedVMs, "the other VM was still deleted")
	assert.Equal(t, []string{"aks-gc-a"}, f.sim.VMNames())
}
