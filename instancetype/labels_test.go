package instancetype

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/requirements"
)

// describe renders requirements as key → "Op [values]".
func describe(rs requirements.Requirements) map[string]string {
	out := make(map[string]string, len(rs))
	for key, r := range rs {
		out[key] = strings.TrimPrefix(r.String(), key+" ")
	}
	return out
}

// TestLabelPropagation is reference case 5, plus every other label on the same two SKUs.
func TestLabelPropagation(t *testing.T) {
	cat := build(t, fixture(t, "southcentralus"), defaultOptions(t, "southcentralus"))
	common := map[string]string{
		api.LabelArch:                "In [amd64]",
		api.LabelOS:                  "In [linux]",
		api.LabelRegion:              "In [southcentralus]",
		api.LabelCapacityType:        "In [on-demand spot]",
		api.LabelAKSScaleSetPriority: "In [regular spot]",
		api.LabelAKSPriority:         "In [regular spot]",
		api.LabelPlacementScope:      "In [regional zonal]",
		api.LabelAKSMode:             "In [system user]",
		api.LabelAKSOSSKU:            "In [Ubuntu]",
		api.LabelAKSFIPSEnabled:      "DoesNotExist",
		api.LabelSKUPremiumStorage:   "In [true]",
	}
	d2v2 := map[string]string{
		api.LabelInstanceType:             "In [Standard_D2_v2]",
		api.LabelSKUName:                  "In [Standard_D2_v2]",
		api.LabelSKUFamily:                "In [D]",
		api.LabelSKUSeries:                "In [D_v2]",
		api.LabelSKUVersion:               "In [2]",
		api.LabelSKUCPU:                   "In [2]",
		api.LabelAKSSKUCPU:                "In [2]",
		api.LabelSKUMemory:                "In [7168]",
		api.LabelAKSSKUMemory:             "In [7168]",
		api.LabelSKUHyperVGeneration:      "In [1]",
		api.LabelSKUGPUCount:              "In [0]",
		api.LabelSKUAcceleratedNetworking: "In [true]",
		api.LabelSKUUltraSSD:              "In [false]",
		api.LabelZone:                     "In [0 southcentralus-1 southcentralus-2 southcentralus-3]",
		api.LabelSKUPremiumStorage:        "In [false]",
	}
	nc24 := map[string]string{
		api.LabelInstanceType:             "In [Standard_NC24ads_A100_v4]",
		api.LabelSKUName:                  "In [Standard_NC24ads_A100_v4]",
		api.LabelSKUFamily:                "In [N]",
		api.LabelSKUSeries:                "In [NCads_v4]",
		api.LabelSKUVersion:               "In [4]",
		api.LabelSKUCPU:                   "In [24]",
		api.LabelAKSSKUCPU:                "In [24]",
		api.LabelSKUMemory:                "In [225280]",
		api.LabelAKSSKUMemory:             "In [225280]",
		api.LabelSKUHyperVGeneration:      "In [2]",
		api.LabelSKUGPUCount:              "In [1]",
		api.LabelSKUGPUName:               "In [A100]",
		api.LabelSKUGPUManufacturer:       "In [nvidia]",
		api.LabelSKUEphemeralOSMaxSize:    "In [274]",
		api.LabelSKUAcceleratedNetworking: "In [true]",
		api.LabelSKUUltraSSD:              "In [false true]", // the regional offering (SKU-level capability)
		api.LabelZone:                     "In [0 southcentralus-1 southcentralus-3]",
	}
	for name, want := range map[string]map[string]string{"Standard_D2_v2": d2v2, "Standard_NC24ads_A100_v4": nc24} {
		t.Run(name, func(t *testing.T) {
			full := map[string]string{}
			for k, v := range common {
				full[k] = v
			}
			for k, v := range want {
				full[k] = v
			}
			assert.Equal(t, full, describe(mustFind(t, cat, name).Requirements))
		})
	}
	nc24it := mustFind(t, cat, "Standard_NC24ads_A100_v4")
	assert.Equal(t, int64(1), nc24it.Capacity.Name(ResourceNVIDIAGPU, "").Value())
	_, gpu := mustFind(t, cat, "Standard_D2_v2").Capacity[ResourceNVIDIAGPU]
	assert.False(t, gpu)
}

func TestLabelsFromNodeClass(t *testing.T) {
	opts := defaultOptions(t, "southcentralus")
	opts.NodeClass = nodeClass(func(s *api.AKSNodeClassSpec) {
		s.ImageFamily = ptr(api.ImageFamilyAzureLinux)
		s.FIPSMode = ptr(api.FIPSModeFIPS)
	})
	it := mustFind(t, build(t, fixture(t, "southcentralus"), opts), "Standard_D16plds_v5")
	got := describe(it.Requirements)
	assert.Equal(t, "In [AzureLinux]", got[api.LabelAKSOSSKU])
	assert.Equal(t, "In [true]", got[api.LabelAKSFIPSEnabled])
	assert.Equal(t, "In [arm64]", got[api.LabelArch])
	assert.Equal(t, "In [Dplds_v5]", got[api.LabelSKUSeries])
	assert.Equal(t, "In [429]", got[api.LabelSKUEphemeralOSMaxSize])
}

func TestRegionalOnlyLabels(t *testing.T) {
	// eastus records NC6s_v3 as restricted in zones 1-3: it is offered regionally only.
	it := mustFind(t, build(t, fixture(t, "eastus"), defaultOptions(t, "eastus")), "Standard_NC6s_v3")
	got := describe(it.Requirements)
	assert.Equal(t, "In [0]", got[api.LabelZone])
	assert.Equal(t, "In [regional]", got[api.LabelPlacementScope])
	assert.Len(t, it.Offerings, 2)
}

func TestUnavailableOfferingsNarrowLabels(t *testing.T) {
	opts := defaultOptions(t, "southcentralus")
	opts.Unavailable = func(sku, zone, capacityType string) bool {
		return sku == "Standard_D2s_v3" && (capacityType == api.CapacityTypeSpot || zone == api.RegionalZone)
	}
	it := mustFind(t, build(t, fixture(t, "southcentralus"), opts), "Standard_D2s_v3")
	got := describe(it.Requirements)
	assert.Equal(t, "In [southcentralus-1 southcentralus-2 southcentralus-3]", got[api.LabelZone])
	assert.Equal(t, "In [on-demand]", got[api.LabelCapacityType])
	assert.Equal(t, "In [regular]", got[api.LabelAKSPriority])
	assert.Equal(t, "In [zonal]", got[api.LabelPlacementScope])
	assert.Len(t, it.Offerings, 8, "unavailable offerings are kept, marked")
	assert.Len(t, it.Offerings.Available(), 3)

	opts.Unavailable = func(string, string, string) bool { return true }
	none := mustFind(t, build(t, fixture(t, "southcentralus"), opts), "Standard_D2s_v3")
	assert.Equal(t, corev1.NodeSelectorOpDoesNotExist, none.Requirements.Get(api.LabelZone).Operator())
	_, ok := none.Offerings.Cheapest()
	assert.False(t, ok)
}
