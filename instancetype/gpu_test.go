package instancetype

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
)

// The expectations below are upstream's: IsGPUSKU, GetGPUManufacturer, IsDriverInstallSupported and
// IsGPUSKUSupportedOnOS read the supported-GPU list by name (lower case, _promo trimmed).
// upstream: pkg/utils/gpu.go, pkg/utils/gpu_test.go, pkg/utils/supported-gpus.yaml
func TestLookupGPU(t *testing.T) {
	tests := []struct {
		name            string
		supported       bool
		manufacturer    string
		ubuntu, azlinux bool
		driverInstallOK bool
	}{
		{"Standard_NC24ads_A100_v4", true, GPUManufacturerNVIDIA, true, true, true},
		{"Standard_NC16as_T4_v3", true, GPUManufacturerNVIDIA, true, true, true},
		{"standard_nc6s_v3", true, GPUManufacturerNVIDIA, true, true, true},
		{"Standard_NC6s_v2_Promo", true, GPUManufacturerNVIDIA, true, false, true}, // upstream: IsNvidiaEnabledSKU(standard_nc6s_v2_promo)
		{"Standard_NC6_Promo", true, GPUManufacturerNVIDIA, true, false, true},
		{"Standard_NV36adms_A10_v5", true, GPUManufacturerNVIDIA, true, true, true}, // A10: azurelinux3 too
		{"Standard_NC8ads_A10_v4", true, GPUManufacturerNVIDIA, true, true, true},
		{"Standard_NC36ds_xl_RTXPRO6000BSE_v6", true, GPUManufacturerNVIDIA, true, false, true},
		{"Standard_NC24lds_xl_RTXPRO6000BSE_v6", true, GPUManufacturerNVIDIA, true, false, true},
		{"Standard_NV4ads_V710_v5", true, GPUManufacturerAMD, true, false, false}, // upstream: IsGPUSKU true (AMD)
		{"Standard_ND96isr_MI300X_v5", true, GPUManufacturerAMD, true, false, false},
		{"Standard_NV4as_v4", false, "", false, false, false}, // MI25: not in the list
		{"Standard_NP10s", false, "", false, false, false},    // FPGA
		{"Standard_NCC40ads_H100_v5", false, "", false, false, false},
		{"Standard_D2_v2", false, "", false, false, false}, // upstream: IsNvidiaEnabledSKU(standard_d2_v2) false
		{"", false, "", false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, ok := LookupGPU(tc.name)
			require.Equal(t, tc.supported, ok)
			assert.Equal(t, tc.manufacturer, g.Manufacturer)
			assert.Equal(t, tc.ubuntu, g.SupportsOS(OSUbuntu))
			assert.Equal(t, tc.azlinux, g.SupportsOS(OSAzureLinux))
			assert.Equal(t, tc.driverInstallOK, g.ManagedDriver)
		})
	}
}

// TestEmbeddedGPUListParses keeps the embedded copy of ../shared/data/azure/supported-gpus.csv (89
// sizes) well formed.
func TestEmbeddedGPUListParses(t *testing.T) {
	table, err := ParseGPUList(bytes.NewReader(supportedGPUs))
	require.NoError(t, err)
	assert.Len(t, table, 89)
	assert.Len(t, GPUSizes(), 89)
}

func TestParseGPUListErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"header", "name,vendor,os\n", "header must be sku,gpu_vendor,os_families"},
		{"vendor", "sku,gpu_vendor,os_families\nstandard_x,intel,ubuntu\n", `row 2: gpu_vendor "intel"`},
		{"os", "sku,gpu_vendor,os_families\nstandard_x,amd,debian\n", `row 2: os_families: unknown family "debian"`},
		{"empty sku", "sku,gpu_vendor,os_families\n ,amd,ubuntu\n", "row 2: sku is empty"},
		{"duplicate", "sku,gpu_vendor,os_families\nstandard_x,amd,ubuntu\nStandard_X,amd,ubuntu\n", `row 3: sku "standard_x" listed twice`},
		{"fields", "sku,gpu_vendor,os_families\nstandard_x,amd\n", "wrong number of fields"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseGPUList(strings.NewReader(tc.in))
			require.ErrorIs(t, err, ErrGPUList)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func FuzzParseGPUList(f *testing.F) {
	f.Add(string(supportedGPUs))
	f.Add("sku,gpu_vendor,os_families\nstandard_x,amd,ubuntu\n")
	f.Fuzz(func(t *testing.T, in string) {
		table, err := ParseGPUList(strings.NewReader(in))
		if err != nil {
			require.ErrorIs(t, err, ErrGPUList)
			return
		}
		for name, g := range table {
			assert.Equal(t, strings.ToLower(name), name)
			assert.Equal(t, g.Manufacturer == GPUManufacturerNVIDIA, g.ManagedDriver)
		}
	})
}

func TestLookupGPUReturnsACopy(t *testing.T) {
	g, _ := LookupGPU("Standard_NC6s_v3")
	g.OS[0] = "changed"
	again, _ := LookupGPU("Standard_NC6s_v3")
	assert.Equal(t, OSUbuntu, again.OS[0])
}

// TestGPUSizesInTheEastusCatalogue builds the real eastus catalogue and checks how each GPU size is
// admitted, per image family and gpu.mode.
// upstream: pkg/providers/instancetype/instancetypes.go (isUnsupportedGPU,
// isInstanceTypeSupportedByImageFamily, isInstanceTypeSupportedByGPUDriverMode) and
// pkg/providers/instancetype/instancetype.go (setRequirementsGPU, gpuTotalCount, gpuAMDCount)
func TestGPUSizesInTheEastusCatalogue(t *testing.T) {
	ubuntu := func(*api.AKSNodeClassSpec) {}
	azureLinux := func(s *api.AKSNodeClassSpec) { s.ImageFamily = ptr(api.ImageFamilyAzureLinux) }
	gpuNone := func(s *api.AKSNodeClassSpec) { s.GPU = &api.GPU{Mode: ptr(api.GPUModeNone)} }
	tests := []struct {
		name, sku    string
		spec         func(*api.AKSNodeClassSpec)
		excluded     ExclusionKind // "" means admitted
		manufacturer string
		gpuCount     string
	}{
		// ARM leaves GPUs empty for the AMD V710 sizes: by name they are AMD GPU sizes, which AKS
		// installs no driver for, so gpu.mode Driver excludes them; gpu.mode None admits them as
		// AMD GPU nodes (the count is ARM's, 0), never as CPU nodes.
		{"V710 driver mode", "Standard_NV12ads_V710_v5", ubuntu, ExcludedGPUDriver, "", ""},
		{"V710 mode None", "Standard_NV12ads_V710_v5", gpuNone, "", GPUManufacturerAMD, "0"},
		{"V710 AzureLinux", "Standard_NV8ads_V710_v5", azureLinux, ExcludedGPUImageFamily, "", ""},
		{"A10 v5 AzureLinux", "Standard_NV36adms_A10_v5", azureLinux, "", GPUManufacturerNVIDIA, "1"},
		{"A10 v5 Ubuntu", "Standard_NV12ads_A10_v5", ubuntu, "", GPUManufacturerNVIDIA, "1"},
		{"NVv3 AzureLinux", "Standard_NV12s_v3", azureLinux, ExcludedGPUImageFamily, "", ""},
		{"T4 AzureLinux", "Standard_NC4as_T4_v3", azureLinux, "", GPUManufacturerNVIDIA, "1"},
		{"H100 Ubuntu", "Standard_ND96isr_H100_v5", ubuntu, "", GPUManufacturerNVIDIA, "8"},
		{"MI25 not listed", "Standard_NV16as_v4", gpuNone, ExcludedUnsupportedGPU, "", ""},
		{"FPGA not listed", "Standard_NP10s", ubuntu, ExcludedUnsupportedGPU, "", ""},
		{"CPU size", "Standard_D4s_v5", ubuntu, "", "", "0"},
	}
	skus := catalog(t, "eastus")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := defaultOptions(t, "eastus")
			opts.NodeClass = nodeClass(tc.spec)
			cat := build(t, skus, opts)
			if tc.excluded != "" {
				assert.Equal(t, tc.excluded, exclusions(cat)[tc.sku])
				return
			}
			it := mustFind(t, cat, tc.sku)
			labels := it.Requirements.Labels()
			assert.Equal(t, tc.manufacturer, labels[api.LabelSKUGPUManufacturer])
			assert.Equal(t, tc.gpuCount, labels[api.LabelSKUGPUCount])
		})
	}
}
