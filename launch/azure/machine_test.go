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

// The Machine body the launcher PUTs, field by field, and the instance it
// reports: one write per node, no VM or NIC of the launcher's own.
func TestMachineCreateBody(t *testing.T) {
	spot, od := launch.CapacityTypeSpot, launch.CapacityTypeOnDemand
	ephemeral := candidate("Standard_D8s_v5", 8, offering("westus2-2", spot, 0.08))
	ephemeral.EphemeralOSDiskPlacement, ephemeral.EphemeralOSDiskMaxGB = "CacheDisk", 200
	tests := []struct {
		name     string
		cand     launch.Candidate
		want     map[string]any
		absent   []string
		wantInst launch.Instance
	}{
		{
			name: "spot zonal ephemeral",
			cand: ephemeral,
			want: map[string]any{
				"zones": []any{"2"}, "properties.hardware.vmSize": "Standard_D8s_v5",
				"properties.priority": "Spot", "properties.evictionPolicy": "Delete",
				"properties.billingProfile.maxPrice": float64(-1), "properties.operatingSystem.osDiskType": "Ephemeral",
				"properties.operatingSystem.osDiskSizeGB": float64(128), "properties.operatingSystem.osSKU": "Ubuntu",
				"properties.kubernetes.nodeImageVersion": testNodeImage, "properties.kubernetes.maxPods": float64(250),
				"properties.kubernetes.nodeLabels.team": "infra", "properties.mode": "User",
			},
			wantInst: launch.Instance{SKU: "Standard_D8s_v5", Zone: "westus2-2", CapacityType: spot},
		},
		{
			name:     "on-demand regional managed disk",
			cand:     candidate("Standard_D2s_v5", 2, offering("0", od, 0.1)),
			want:     map[string]any{"properties.priority": "Regular", "properties.operatingSystem.osDiskType": "Managed", "properties.hardware.vmSize": "Standard_D2s_v5"},
			absent:   []string{"zones", "properties.evictionPolicy", "properties.billingProfile"},
			wantInst: launch.Instance{SKU: "Standard_D2s_v5", Zone: launch.RegionalZone, CapacityType: od},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, azuresim.Options{}, machineMode)
			inst, err := f.launcher.Create(context.Background(), machineRequest(t, "mbody-1", tt.cand))
			require.NoError(t, err)
			puts := f.sim.RequestsFor(azuresim.OpMachinePut, "mbody-1")
			require.Len(t, puts, 1)
			assert.Equal(t, "/subscriptions/"+azuresim.DefaultSubscriptionID+"/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/napkit/agentPools/karpenter/machines/mbody-1", puts[0].Path)
			assert.Equal(t, azure.DefaultMachineAPIVersion, puts[0].Query.Get("api-version"))
			body := jsonBody(t, puts[0])
			for path, want := range tt.want {
				assert.Equal(t, want, field(body, path), path)
			}
			for _, path := range tt.absent {
				assert.Nil(t, field(body, path), path)
			}
			assert.Equal(t, map[string]any{
				azure.TagCluster: testCluster, azure.TagNodePool: "default", azure.TagBilling: "linux", "team": "infra",
				azure.TagMachineNodeClaim: "mbody-1", azure.TagCreatedAt: f.clock.Now().Format(time.RFC3339),
			}, field(body, "properties.tags"))

			vm := azuresim.MachineVMName(testMachinesPool, "mbody-1")
			assert.Equal(t, vm, inst.Name)
			assert.Equal(t, azure.ProviderID(azuresim.DefaultSubscriptionID, testRG, vm), inst.ProviderID)
			assert.Equal(t, tt.wantInst.SKU, inst.SKU)
			assert.Equal(t, tt.wantInst.Zone, inst.Zone)
			assert.Equal(t, tt.wantInst.CapacityType, inst.CapacityType)
			assert.Equal(t, "mbody-1", inst.NodeClaimName)
			assert.Equal(t, testNodeImage, inst.ImageID)
			assert.Equal(t, launch.StateSucceeded, inst.State)
			assert.Equal(t, 1, writes(f.sim, "mbody-1"), "one Machine PUT per node")
			assert.Empty(t, f.sim.VMNames())
			assert.Empty(t, f.sim.NICNames())
		})
	}
}

// Machine failures go through the reference table, the Machine API rows
// included, and the launch moves to the next offering.
func TestMachineCreateFallsBack(t *testing.T) {
	od := launch.CapacityTypeOnDemand
	d2 := candidate("Standard_D2s_v5", 2, offering("0", od, 0.05), offering("westus2-1", od, 0.1))
	tests := []struct {
		name        string
		fault       azuresim.Fault
		candidates  []launch.Candidate
		wantSizes   []string // vmSize of each PUT
		wantDeleted bool     // the failed machine was deleted before the next attempt
		marked      []launch.Placement
		freeAfter   time.Duration
	}{
		{
			name:       "async AllocationFailed in the provisioning error's detail",
			fault:      azuresim.Fault{Kind: azuresim.FaultAllocationFailed, Zone: azuresim.Regional, Async: true, Count: 1},
			candidates: []launch.Candidate{d2},
			wantSizes:  []string{"Standard_D2s_v5", "Standard_D2s_v5"}, wantDeleted: true,
			marked:    []launch.Placement{d("Standard_D2s_v5", 2, "0", od), d("Standard_D2s_v5", 2, "0", launch.CapacityTypeSpot)},
			freeAfter: time.Hour,
		},
		{
			name:       "VMSizeNotSupported: every zone, both capacity types, 23 h",
			fault:      azuresim.Fault{Kind: azuresim.FaultVMSizeNotSupported, SKU: "Standard_D2s_v5"},
			candidates: []launch.Candidate{d2, familyCandidate("Standard_E4s_v5", "standardESv5Family", 4, offering("westus2-1", od, 0.2))},
			wantSizes:  []string{"Standard_D2s_v5", "Standard_E4s_v5"},
			marked: []launch.Placement{d("Standard_D2s_v5", 2, "0", od), d("Standard_D2s_v5", 2, "westus2-1", od),
				d("Standard_D2s_v5", 2, "westus2-1", launch.CapacityTypeSpot)},
			freeAfter: 23 * time.Hour,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, azuresim.Options{}, machineMode)
			f.sim.Inject(tt.fault)
			_, err := f.launcher.Create(context.Background(), machineRequest(t, "mfall-1", tt.candidates...))
			require.NoError(t, err)
			var sizes []string
			for _, r := range f.sim.RequestsFor(azuresim.OpMachinePut, "mfall-1") {
				sizes = append(sizes, field(jsonBody(t, r), "properties.hardware.vmSize").(string))
			}
			assert.Equal(t, tt.wantSizes, sizes)
			assert.Equal(t, tt.wantDeleted, len(f.sim.RequestsFor(azuresim.OpMachineDelete, "mfall-1")) > 0)
			assert.Equal(t, []string{"mfall-1"}, f.sim.MachineNames())
			for _, p := range tt.marked {
				assert.True(t, f.launcher.Cache().IsUnavailable(p), p.Key())
			}
			f.clock.Advance(tt.freeAfter + time.Second)
			for _, p := range tt.marked {
				assert.False(t, f.launcher.Cache().IsUnavailable(p), "%s after %v", p.Key(), tt.freeAfter)
			}
		})
	}
}

// Get, List, Delete and GC address machines through their VMs' provider IDs.
func TestMachineLifecycle(t *testing.T) {
	f := newFixture(t, azuresim.Options{}, machineMode)
	ctx := context.Background()
	cand := candidate("Standard_D2s_v5", 2, offering("westus2-1", launch.CapacityTypeOnDemand, 0.1))
	a, err := f.launcher.Create(ctx, machineRequest(t, "life-a", cand))
	require.NoError(t, err)
	b, err := f.launcher.Create(ctx, machineRequest(t, "life-b", cand))
	require.NoError(t, err)

	again, err := f.launcher.Create(ctx, machineRequest(t, "life-a", cand))
	require.NoError(t, err)
	assert.Equal(t, a, again, "an existing machine is reused")
	assert.Equal(t, 1, writes(f.sim, "life-a"))

	got, err := f.launcher.Get(ctx, a.ProviderID)
	require.NoError(t, err)
	assert.Equal(t, a, got)
	list, err := f.launcher.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, []*launch.Instance{a, b}, list)

	require.NoError(t, f.launcher.Delete(ctx, a.ProviderID))
	require.NoError(t, f.launcher.Delete(ctx, a.ProviderID), "deleting a gone machine is success")
	_, err = f.launcher.Get(ctx, a.ProviderID)
	assert.ErrorIs(t, err, launch.ErrNotFound)

	res, err := f.launcher.CollectGarbage(ctx, func(string) bool { return false }, time.Minute, f.clock.Now())
	require.NoError(t, err)
	assert.Empty(t, res.DeletedMachines, "younger than the grace period")
	res, err = f.launcher.CollectGarbage(ctx, func(string) bool { return false }, time.Minute, f.clock.Now().Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, []string{"life-b"}, res.DeletedMachines)
	assert.Empty(t, f.sim.MachineNames())
}

func TestMachineModeNeedsMachineBody(t *testing.T) {
	f := newFixture(t, azuresim.Options{}, machineMode)
	_, err := f.launcher.Create(context.Background(), request("nobody-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.ErrorIs(t, err, launch.ErrInvalidRequest)
	assert.ErrorContains(t, err, "machine body")
	assert.Empty(t, f.sim.Requests())
}
