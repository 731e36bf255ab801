package imagefamily_test

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
)

// TestGPUDriverKindOfEveryListedSize runs every NVIDIA size of the supported-GPU list through the
// driver choice: the nine converged sizes get GRID, the nine RTX PRO 6000 sizes GRID v20, the NCv1
// sizes the legacy CUDA branch, and the rest CUDA LTS.
// upstream: pkg/utils/gpu.go (GetGPUDriverType, ConvergedGPUDriverSizes, rtxPro6000GPUDriverSizes)
func TestGPUDriverKindOfEveryListedSize(t *testing.T) {
	kinds := map[string][]string{}
	for _, name := range instancetype.GPUSizes() {
		g, ok := instancetype.LookupGPU(name)
		require.True(t, ok, name)
		if g.Manufacturer != instancetype.GPUManufacturerNVIDIA {
			continue
		}
		d := bootstrap.DriverForSKU(name)
		kinds[d.Type] = append(kinds[d.Type], name)
	}
	assert.Equal(t, []string{"standard_nc16ads_a10_v4", "standard_nc32ads_a10_v4", "standard_nc8ads_a10_v4",
		"standard_nv12ads_a10_v5", "standard_nv18ads_a10_v5", "standard_nv36adms_a10_v5", "standard_nv36ads_a10_v5",
		"standard_nv6ads_a10_v5", "standard_nv72ads_a10_v5"}, kinds[bootstrap.GPUDriverGRID])
	assert.Len(t, kinds[bootstrap.GPUDriverGRIDv20], 9)
	for _, name := range kinds[bootstrap.GPUDriverGRIDv20] {
		assert.Contains(t, name, "_rtxpro6000bse_v6")
	}
	assert.Equal(t, []string{"standard_nc12", "standard_nc12_promo", "standard_nc24", "standard_nc24_promo",
		"standard_nc24r", "standard_nc24r_promo", "standard_nc6", "standard_nc6_promo"}, kinds[bootstrap.GPUDriverCUDA])
	assert.Len(t, kinds[bootstrap.GPUDriverCUDALTS], 82-9-9-8, "82 NVIDIA sizes in the list")
}

// TestShapeOfGPUByName: the V710 sizes, whose ARM record has no GPUs capability, are still AMD GPU
// shapes (and so never get the NVIDIA runtime), and the A10 v5 sizes are NVIDIA shapes.
// upstream: pkg/utils/gpu.go (IsGPUSKU, IsNvidiaEnabledSKU)
func TestShapeOfGPUByName(t *testing.T) {
	none := nodeClass(api.AKSNodeClassSpec{GPU: &api.GPU{Mode: ptr(api.GPUModeNone)}})
	cat := catalogue(t, none)
	tests := []struct {
		sku          string
		manufacturer string
		count        int64
	}{
		{"Standard_NV12ads_V710_v5", instancetype.GPUManufacturerAMD, 0},
		{"Standard_NV36adms_A10_v5", instancetype.GPUManufacturerNVIDIA, 1},
		{"Standard_NC24ads_A100_v4", instancetype.GPUManufacturerNVIDIA, 1},
	}
	for _, tc := range tests {
		t.Run(tc.sku, func(t *testing.T) {
			it, ok := cat.Find(tc.sku)
			require.True(t, ok)
			shape := imagefamily.ShapeOf(it)
			require.NotNil(t, shape.GPU)
			assert.Equal(t, tc.manufacturer, shape.GPU.Manufacturer)
			assert.Equal(t, tc.count, shape.GPU.Count)
		})
	}
}

// gpuShape is the shape of a GPU size from the eastus catalogue.
func gpuShape(t *testing.T, sku string) imagefamily.NodeShape {
	t.Helper()
	it, ok := catalogue(t, nil).Find(sku)
	require.True(t, ok, sku)
	return imagefamily.ShapeOf(it)
}

// TestGoldenGPUDriverKinds renders a scriptless GPU node of each driver kind (cuda-lts is
// aksscriptless-gpu). The RTX PRO 6000 and NCv1 sizes are not in the eastus data, so their shapes are
// written by hand; the driver depends on the size name only.
func TestGoldenGPUDriverKinds(t *testing.T) {
	nvidia := &imagefamily.GPUInfo{Manufacturer: instancetype.GPUManufacturerNVIDIA, Count: 1, ManagedDriver: true}
	tests := []struct {
		name  string
		shape func() imagefamily.NodeShape
	}{
		{"aksscriptless-gpu-grid", func() imagefamily.NodeShape { return gpuShape(t, "Standard_NV36adms_A10_v5") }},
		{"aksscriptless-gpu-grid-v20", func() imagefamily.NodeShape {
			return imagefamily.NodeShape{SKUName: "Standard_NC36ds_xl_RTXPRO6000BSE_v6", Arch: api.ArchAMD64,
				HyperVGenerations: []string{"2"}, VCPUs: 36, MemoryGiB: 320, GPU: nvidia}
		}},
		{"aksscriptless-gpu-cuda", func() imagefamily.NodeShape {
			return imagefamily.NodeShape{SKUName: "Standard_NC24r", Arch: api.ArchAMD64,
				HyperVGenerations: []string{"1"}, VCPUs: 24, MemoryGiB: 224, GPU: &imagefamily.GPUInfo{Manufacturer: "nvidia", Count: 4, ManagedDriver: true}}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := imagefamily.Generate(baseInput(tc.shape()))
			require.NoError(t, err)
			checkGolden(t, tc.name, goldenText(t, out))
		})
	}
}

// TestGPUContainerRuntime: containerd runs containers through nvidia-container-runtime exactly on
// NVIDIA nodes whose driver the image installs; AMD sizes and gpu.mode None keep runc.
// upstream: pkg/providers/imagefamily/bootstrap/containerd.toml.gtpl, bootstrap/aksbootstrap.go
// (GPUNode && GPUDriverInstallationEnabled)
func TestGPUContainerRuntime(t *testing.T) {
	none := func(in imagefamily.Input) imagefamily.Input {
		in.NodeClass.Spec.GPU = &api.GPU{Mode: ptr(api.GPUModeNone)}
		return in
	}
	same := func(in imagefamily.Input) imagefamily.Input { return in }
	tests := []struct {
		sku     string
		mutate  func(imagefamily.Input) imagefamily.Input
		runtime string
		driver  string
	}{
		{"Standard_NV36adms_A10_v5", same, "nvidia-container-runtime", "grid"},
		{"Standard_NC24ads_A100_v4", same, "nvidia-container-runtime", "cuda-lts"},
		{"Standard_NC24ads_A100_v4", none, "runc", ""},
		{"Standard_NV12ads_V710_v5", none, "runc", ""},
		{"Standard_D4s_v5", same, "runc", ""},
	}
	cat := catalogue(t, nodeClass(api.AKSNodeClassSpec{GPU: &api.GPU{Mode: ptr(api.GPUModeNone)}}))
	for _, tc := range tests {
		t.Run(tc.sku+"/"+tc.runtime, func(t *testing.T) {
			it, ok := cat.Find(tc.sku)
			require.True(t, ok)
			_, s := generateScript(t, tc.mutate(baseInput(imagefamily.ShapeOf(it))))
			containerd, err := base64.StdEncoding.DecodeString(s.vars["CONTAINERD_CONFIG_CONTENT"])
			require.NoError(t, err)
			assert.Contains(t, string(containerd), `default_runtime_name = "`+tc.runtime+`"`)
			assert.Equal(t, tc.driver, s.vars["GPU_DRIVER_TYPE"])
		})
	}
}
