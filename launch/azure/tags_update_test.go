package azure_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// A node class tag change reaches the VM and its NIC in place: one PATCH each, no new VM; a second
// update with the same tags writes nothing (upstream: pkg/controllers/nodeclaim/inplaceupdate).
func TestUpdateTags(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	inst := launched(t, f, "tags-1")[0]
	ctx := context.Background()
	name := azure.ResourceName("tags-1")
	puts := len(f.sim.RequestsFor(azuresim.OpVMPut, name))

	changed, err := f.launcher.UpdateTags(ctx, inst.ProviderID, "default", map[string]string{"team": "b", "cost/center": "42"})
	require.NoError(t, err)
	assert.True(t, changed)
	vm := jsonBody(t, lastOf(t, f.sim, azuresim.OpVMPatch, name))
	assert.Equal(t, map[string]any{"team": "b", "cost_center": "42", azure.TagCluster: testCluster,
		azure.TagNodePool: "default", azure.TagBilling: "linux"}, vm["tags"])
	nic := jsonBody(t, lastOf(t, f.sim, azuresim.OpNICPatch, name))
	nicTags, _ := nic["tags"].(map[string]any)
	assert.Equal(t, "b", nicTags["team"])
	assert.NotEmpty(t, nicTags[azure.TagCreatedAt], "the NIC keeps its creation time")
	assert.Len(t, f.sim.RequestsFor(azuresim.OpVMPut, name), puts, "no VM replaced")

	got, err := f.launcher.Get(ctx, inst.ProviderID)
	require.NoError(t, err)
	assert.Equal(t, "b", got.Tags["team"])

	changed, err = f.launcher.UpdateTags(ctx, inst.ProviderID, "default", map[string]string{"team": "b", "cost/center": "42"})
	require.NoError(t, err)
	assert.False(t, changed)
	assert.Len(t, f.sim.RequestsFor(azuresim.OpVMPatch, name), 1, "nothing written when the tags match")

	_, err = f.launcher.UpdateTags(ctx, "azure:///subscriptions/x/resourceGroups/other/providers/Microsoft.Compute/virtualMachines/v", "default", nil)
	require.Error(t, err, "a foreign VM is refused")
}

func lastOf(t *testing.T, sim *azuresim.Sim, op azuresim.Op, name string) azuresim.Record {
	t.Helper()
	rs := sim.RequestsFor(op, name)
	require.NotEmpty(t, rs, "%s %s", op, name)
	return rs[len(rs)-1]
}
