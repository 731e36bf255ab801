package instancetype

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLookupGPU(t *testing.T) {
	tests := []struct {
		size         string
		supported    bool
		manufacturer string
		ubuntu       bool
		azureLinux   bool
		driver       bool
	}{
		{"NC24ads_A100_v4", true, GPUManufacturerNVIDIA, true, true, true},
		{"NC16as_T4_v3", true, GPUManufacturerNVIDIA, true, true, true},
		{"NC6s_v3", true, GPUManufacturerNVIDIA, true, true, true},
		{"NC24rs_v3", true, GPUManufacturerNVIDIA, true, true, true},
		{"NC6s_v2", true, GPUManufacturerNVIDIA, true, false, true},
		{"NC6", true, GPUManufacturerNVIDIA, true, false, true},
		{"NC6_Promo", true, GPUManufacturerNVIDIA, true, false, true},
		{"ND96asr_v4", true, GPUManufacturerNVIDIA, true, true, true},
		{"ND96amsr_A100_v4", true, GPUManufacturerNVIDIA, true, true, true},
		{"ND96isr_H100_v5", true, GPUManufacturerNVIDIA, true, true, true},
		{"ND40rs_v2", true, GPUManufacturerNVIDIA, true, true, true},
		{"NC40ads_H100_v5", true, GPUManufacturerNVIDIA, true, true, true},
		{"NC80adis_H100_v5", true, GPUManufacturerNVIDIA, true, true, true},
		{"NV36ads_A10_v5", true, GPUManufacturerNVIDIA, true, false, true},
		{"NC8ads_A10_v4", true, GPUManufacturerNVIDIA, true, false, true},
		{"NV12s_v3", true, GPUManufacturerNVIDIA, true, false, true},
		{"NV4ads_V710_v5", true, GPUManufacturerAMD, true, false, false},
		{"ND96isr_MI300X_v5", true, GPUManufacturerAMD, true, false, false},
		{"NV4as_v4", true, GPUManufacturerAMD, false, false, false}, // MI25: Windows only
		{"NP10s", false, "", false, false, false},                   // FPGA
		{"NG8ads_V620_v1", false, "", false, false, false},
		{"NCC40ads_H100_v5", false, "", false, false, false},
		{"D2s_v3", false, "", false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.size, func(t *testing.T) {
			size, err := ParseSize(tc.size)
			require.NoError(t, err)
			g, ok := LookupGPU(size)
			require.Equal(t, tc.supported, ok)
			assert.Equal(t, tc.manufacturer, g.Manufacturer)
			assert.Equal(t, tc.ubuntu, g.SupportsOS(OSUbuntu))
			assert.Equal(t, tc.azureLinux, g.SupportsOS(OSAzureLinux))
			assert.Equal(t, tc.driver, g.ManagedDriver)
			if ok {
				want := ResourceNVIDIAGPU
				if tc.manufacturer == GPUManufacturerAMD {
					want = ResourceAMDGPU
				}
				assert.Equal(t, want, g.Resource())
			}
		})
	}
}

func TestGPUTableKeysParse(t *testing.T) {
	for key, g := range gpuSeries {
		assert.Contains(t, []string{GPUManufacturerNVIDIA, GPUManufacturerAMD}, g.Manufacturer, key)
		assert.Equal(t, g.Manufacturer == GPUManufacturerNVIDIA, g.ManagedDriver, key)
		assert.NotEmpty(t, g.Model, key)
		// A key is a size name without its vCPU count (every GPU series has two family letters); with
		// a count put back it must parse to the same key.
		name := key[:2] + "8" + key[2:]
		size, err := ParseSize(name)
		if assert.NoError(t, err, key) {
			assert.Equal(t, key, size.seriesKey())
		}
	}
}

func TestLookupGPUReturnsACopy(t *testing.T) {
	size, err := ParseSize("NC6s_v3")
	require.NoError(t, err)
	g, _ := LookupGPU(size)
	g.OS[0] = "changed"
	again, _ := LookupGPU(size)
	assert.Equal(t, OSUbuntu, again.OS[0])
}
