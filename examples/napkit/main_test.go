package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/napkit/napkit/buildinfo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInstanceTypesJSONContract(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"instance-types", "--region", "eastus", "-o", "json"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())

	var view instanceTypesView
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &view))
	assert.Equal(t, "eastus", view.Region)
	assert.Len(t, view.InstanceTypes, 868) // the five AMD V710 sizes need gpu.mode None
	assert.Len(t, view.Excluded, 425)

	var d2 *instanceTypeView
	for i := range view.InstanceTypes {
		if view.InstanceTypes[i].Name == "Standard_D2s_v3" {
			d2 = &view.InstanceTypes[i]
		}
	}
	require.NotNil(t, d2)
	assert.Equal(t, "7945689497", d2.Capacity["memory"])
	assert.Equal(t, "5693348249", d2.Allocatable["memory"])
	assert.Equal(t, "1900m", d2.Allocatable["cpu"])
	assert.Equal(t, "100Mi", d2.Overhead.EvictionThreshold["memory"])
	assert.Equal(t, "D", d2.Labels["karpenter.azure.com/sku-family"])
	assert.Len(t, d2.Offerings, 8, "3 zones + regional, spot and on-demand")
	for _, ex := range view.Excluded {
		assert.NotEmpty(t, ex.Reason, ex.Name)
	}
}

// catalogFile is an ARM Resource SKU list as the SDK writes it: a plain size and a constrained-vCPU one.
func catalogFile(t *testing.T) []byte {
	t.Helper()
	sku := func(name, size, vcpus, available, memory string) *armcompute.ResourceSKU {
		caps := []string{"vCPUs", vcpus, "vCPUsAvailable", available, "MemoryGB", memory, "HyperVGenerations", "V1,V2",
			"CpuArchitectureType", "x64", "PremiumIO", "True", "LowPriorityCapable", "True"}
		r := &armcompute.ResourceSKU{Name: to.Ptr(name), Size: to.Ptr(size), ResourceType: to.Ptr("virtualMachines"),
			Family: to.Ptr("standardFamily"), Locations: to.SliceOfPtrs("southcentralus"),
			LocationInfo: []*armcompute.ResourceSKULocationInfo{{Location: to.Ptr("southcentralus"), Zones: to.SliceOfPtrs("1", "2")}}}
		for i := 0; i < len(caps); i += 2 {
			r.Capabilities = append(r.Capabilities, &armcompute.ResourceSKUCapabilities{Name: to.Ptr(caps[i]), Value: to.Ptr(caps[i+1])})
		}
		return r
	}
	data, err := json.Marshal(armcompute.ResourceSKUsResult{Value: []*armcompute.ResourceSKU{
		sku("Standard_D2s_v3", "D2s_v3", "2", "2", "8"), sku("Standard_M8-2ms", "M8-2ms", "8", "2", "218.75"),
	}})
	require.NoError(t, err)
	return data
}

func TestInstanceTypesFromCatalogFile(t *testing.T) {
	data := catalogFile(t)
	path := filepath.Join(t.TempDir(), "skus.json")
	require.NoError(t, os.WriteFile(path, data, 0o600))

	var stdout, stderr bytes.Buffer
	code := run([]string{"instance-types", "--region", "southcentralus", "--catalog", path, "-o", "table"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "Standard_D2s_v3")
	assert.NotContains(t, stdout.String(), "Standard_M8-2ms\t", "constrained-vCPU size is excluded")
}
func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, run([]string{arg}, &stdout, &stderr), arg)
		info, ok := buildinfo.Read()
		require.True(t, ok)
		assert.Equal(t, "napkit "+info.String()+"\n", stdout.String(), arg)
		assert.Empty(t, stderr.String(), arg)
	}
}
