package launch_test

import (
	"testing"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/pricing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCandidatesFromCatalogue(t *testing.T) {
	list, err := instancetype.LoadFixture("southcentralus")
	require.NoError(t, err)
	snapshot, err := pricing.DefaultSnapshot()
	require.NoError(t, err)
	prices, _ := snapshot.Region("southcentralus")
	cat, err := list.Build(instancetype.Options{Region: "southcentralus", Network: api.DefaultClusterNetwork(), Prices: prices})
	require.NoError(t, err)
	d64, ok := cat.Find("Standard_D64s_v3")
	require.True(t, ok)
	d2, ok := cat.Find("Standard_D2s_v3")
	require.True(t, ok)

	got := launch.CandidatesFrom([]*instancetype.InstanceType{d2, nil, d64})
	require.Len(t, got, 2)
	assert.Equal(t, "Standard_D2s_v3", got[0].SKU)
	assert.Equal(t, "standardDSv3Family", got[0].Family)
	assert.Equal(t, 2, got[0].VCPUs)
	assert.Empty(t, got[0].EphemeralOSDiskPlacement, "53 GB cache disk cannot hold a 128 GB OS disk")
	assert.Equal(t, "Premium_LRS", got[0].OSDiskStorageAccountType, "the managed disk the plan priced")
	assert.Len(t, got[0].Offerings, len(d2.Offerings))
	assert.Equal(t, "CacheDisk", got[1].EphemeralOSDiskPlacement)
	assert.Empty(t, got[1].OSDiskStorageAccountType, "an ephemeral OS disk is not a managed disk")
	assert.GreaterOrEqual(t, got[1].EphemeralOSDiskMaxGB, int32(128))

	choice, ok := launch.Choose(got, nil, nil)
	require.True(t, ok)
	assert.Equal(t, "Standard_D2s_v3", choice.Candidate.SKU, "cheapest available first")
}
