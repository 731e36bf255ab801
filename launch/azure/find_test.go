package azure_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// FindByNodeClaim finds a NodeClaim's VM or machine by its deterministic name with GETs alone:
// the controller removes the instance of a claim whose launch never reported a provider ID with
// it, and a List would page through every VM in the group.
func TestFindByNodeClaim(t *testing.T) {
	cand := candidate("Standard_D2s_v5", 2, zonal(0.1)...)
	tests := []struct {
		name      string
		machines  bool     // the finding launcher is in the Machine API mode
		vmClaims  []string // launched by a VM-mode launcher
		mClaims   []string // launched as AKS machines
		find      string
		wantFound bool
		wantGets  map[azuresim.Op]int
	}{
		{name: "VM mode: the claim's VM", vmClaims: []string{"find-a", "find-b"}, find: "find-b", wantFound: true,
			wantGets: map[azuresim.Op]int{azuresim.OpVMGet: 1}},
		{name: "VM mode: no VM", vmClaims: []string{"find-a"}, find: "find-gone",
			wantGets: map[azuresim.Op]int{azuresim.OpVMGet: 1}},
		{name: "machine mode: the claim's machine", machines: true, mClaims: []string{"find-m", "find-n"}, find: "find-n", wantFound: true,
			wantGets: map[azuresim.Op]int{azuresim.OpMachineGet: 1}},
		{name: "machine mode: a VM made before the switch", machines: true, vmClaims: []string{"find-old"}, find: "find-old", wantFound: true,
			wantGets: map[azuresim.Op]int{azuresim.OpMachineGet: 1, azuresim.OpVMGet: 1}},
		{name: "machine mode: neither", machines: true, mClaims: []string{"find-m"}, find: "find-gone",
			wantGets: map[azuresim.Op]int{azuresim.OpMachineGet: 1, azuresim.OpVMGet: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, azuresim.Options{}, machineMode)
			vmLauncher := newLauncherForCluster(t, f.sim, testCluster, f.clock)
			made := map[string]*launch.Instance{}
			for _, name := range tt.vmClaims {
				inst, err := vmLauncher.Create(ctx, request(name, cand))
				require.NoError(t, err)
				made[name] = inst
			}
			for _, name := range tt.mClaims {
				inst, err := f.launcher.Create(ctx, machineRequest(t, name, cand))
				require.NoError(t, err)
				made[name] = inst
			}
			finder := f.launcher
			if !tt.machines {
				finder = vmLauncher
			}
			f.sim.ResetRecords()

			got, err := finder.FindByNodeClaim(ctx, tt.find)
			if tt.wantFound {
				require.NoError(t, err)
				assert.Equal(t, made[tt.find].ProviderID, got.ProviderID)
				assert.Equal(t, tt.find, got.NodeClaimName)
			} else {
				require.ErrorIs(t, err, launch.ErrNotFound)
				assert.Contains(t, err.Error(), azure.ResourceName(tt.find))
			}
			for _, op := range []azuresim.Op{azuresim.OpVMGet, azuresim.OpMachineGet, azuresim.OpVMList, azuresim.OpMachineList} {
				assert.Equal(t, tt.wantGets[op], countRequests(f.sim, ofOp(op)), "requests of %s", op)
			}
		})
	}
}
