package azuresku_test

import (
	"encoding/json"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/instancetype/azuresku"
	"github.com/napkit/napkit/internal/azuredata"
)

// The SDK's own decoder and instancetype's SDK-free reader agree on every embedded record: a listed
// record converts to the SKU its JSON reads as.
func TestReadAgreesWithReadSKUs(t *testing.T) {
	sources := map[string]func(string) ([]byte, error){}
	for _, region := range azuredata.FixtureRegions() {
		sources["fixture "+region] = func(string) ([]byte, error) { return azuredata.Fixture(region) }
	}
	sources["catalog eastus"] = func(string) ([]byte, error) { return azuredata.Catalog("eastus") }
	regions := map[string]string{"catalog eastus": "eastus"}
	for _, region := range azuredata.FixtureRegions() {
		regions["fixture "+region] = region
	}
	for name, load := range sources {
		t.Run(name, func(t *testing.T) {
			region := regions[name]
			data, err := load(region)
			require.NoError(t, err)
			var listed armcompute.ResourceSKUsResult
			require.NoError(t, json.Unmarshal(data, &listed), "the SDK decodes the embedded JSON")
			got, err := azuresku.Read(listed.Value, region)
			require.NoError(t, err)
			want, err := instancetype.ReadSKUs(data, region)
			require.NoError(t, err)
			require.NotEmpty(t, want.SKUs)
			assert.Equal(t, want, got)
		})
	}
}

func capabilities(kv ...string) []*armcompute.ResourceSKUCapabilities {
	var out []*armcompute.ResourceSKUCapabilities
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, &armcompute.ResourceSKUCapabilities{Name: to.Ptr(kv[i]), Value: to.Ptr(kv[i+1])})
	}
	return out
}

func TestRead(t *testing.T) {
	d4 := &armcompute.ResourceSKU{
		Name: to.Ptr("Standard_D4s_v5"), ResourceType: to.Ptr("virtualMachines"), Family: to.Ptr("standardDSv5Family"),
		Locations: to.SliceOfPtrs("eastus"),
		LocationInfo: []*armcompute.ResourceSKULocationInfo{{
			Location: to.Ptr("eastus"), Zones: to.SliceOfPtrs("3", "1", "2"),
			ZoneDetails: []*armcompute.ResourceSKUZoneDetails{{Name: to.SliceOfPtrs("2"), Capabilities: capabilities("UltraSSDAvailable", "True")}},
		}},
		Restrictions: []*armcompute.ResourceSKURestrictions{{
			Type:            to.Ptr(armcompute.ResourceSKURestrictionsTypeZone),
			Values:          to.SliceOfPtrs("eastus"),
			RestrictionInfo: &armcompute.ResourceSKURestrictionInfo{Zones: to.SliceOfPtrs("3")},
		}},
		Capabilities: capabilities("vCPUs", "4", "MemoryGB", "16", "HyperVGenerations", "V1,V2", "LowPriorityCapable", "True",
			"CpuArchitectureType", "x64"),
	}
	bad := &armcompute.ResourceSKU{Name: to.Ptr("Standard_Bad"), Capabilities: capabilities("vCPUs", "2", "MemoryGB", "lots")}
	unnamed := &armcompute.ResourceSKU{Capabilities: capabilities("vCPUs", "2")}

	list, err := azuresku.Read([]*armcompute.ResourceSKU{d4, bad, unnamed}, "EastUS")
	require.NoError(t, err)
	require.Len(t, list.SKUs, 1)
	assert.Equal(t, &instancetype.SKU{
		Name: "Standard_D4s_v5", Size: "D4s_v5", ResourceType: "virtualMachines", Family: "standardDSv5Family",
		VCPUs: 4, VCPUsAvailable: 4, MemoryGiB: 16, Arch: api.ArchAMD64, HyperVGenerations: sets.New("1", "2"),
		LowPriorityCapable: true, Zones: []string{"1", "2"}, UltraSSDZones: []string{"2"}, OfferedInRegion: true,
	}, list.SKUs[0], "zone 3 is restricted; the region matches in any case")
	assert.Equal(t, []instancetype.Excluded{
		{Name: "Standard_Bad", Kind: instancetype.ExcludedBadSKU, Reason: `Standard_Bad: capability MemoryGB: want a number, got "lots"`},
		{Name: "(entry 2)", Kind: instancetype.ExcludedBadSKU, Reason: "(unnamed SKU): name: missing"},
	}, list.Unreadable)
}

func TestReadEdges(t *testing.T) {
	list, err := azuresku.Read(nil, "eastus")
	require.NoError(t, err)
	assert.Empty(t, list.SKUs)
	assert.Empty(t, list.Unreadable)

	_, err = azuresku.Read([]*armcompute.ResourceSKU{nil}, "eastus")
	require.ErrorIs(t, err, instancetype.ErrBadSKUList)
	assert.ErrorContains(t, err, "entry 0: null")
}

// Build accounts for every record: the readable ones as instance types or exclusions, the unreadable
// ones as exclusions.
func TestBuild(t *testing.T) {
	data, err := azuredata.Fixture("southcentralus")
	require.NoError(t, err)
	var listed armcompute.ResourceSKUsResult
	require.NoError(t, json.Unmarshal(data, &listed))
	listed.Value = append(listed.Value, &armcompute.ResourceSKU{Name: to.Ptr("Standard_Bad"), Capabilities: capabilities("vCPUs", "x")})
	cat, err := azuresku.Build(listed.Value, instancetype.Options{Region: "southcentralus", Network: api.DefaultClusterNetwork()})
	require.NoError(t, err)
	assert.Len(t, listed.Value, len(cat.InstanceTypes)+len(cat.Excluded))
	_, ok := cat.Find("Standard_D2s_v3")
	assert.True(t, ok)

	_, err = azuresku.Build(listed.Value, instancetype.Options{})
	assert.ErrorIs(t, err, instancetype.ErrBadOptions)
}
