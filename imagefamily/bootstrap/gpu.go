package bootstrap

import "strings"

// GPU driver types the AKS node image can install.
const (
	GPUDriverGRID    = "grid"
	GPUDriverGRIDv20 = "grid-v20"
	GPUDriverCUDA    = "cuda"
	GPUDriverCUDALTS = "cuda-lts"
)

// GPUDriver is the NVIDIA driver a GPU node gets.
type GPUDriver struct {
	// Type is grid, grid-v20, cuda or cuda-lts.
	Type string
	// Version is the driver version.
	Version string
	// ImageSHA is the tag of the driver container image the node pulls.
	ImageSHA string
}

// The driver builds AKS node images ship (versions and image tags as of mid-2026).
func gridDriver() GPUDriver    { return GPUDriver{GPUDriverGRID, "570.211.01", "20260522192315"} }
func gridV20Driver() GPUDriver { return GPUDriver{GPUDriverGRIDv20, "595.58.03", "20260609172331"} }
func cudaLTSDriver() GPUDriver { return GPUDriver{GPUDriverCUDALTS, "580.159.04", "20260629214430"} }

// cudaLegacyDriver is for NCv1 (Tesla K80), which newer drivers dropped. Its image tag is the LTS one:
// only the driver version differs.
func cudaLegacyDriver() GPUDriver {
	return GPUDriver{GPUDriverCUDA, "470.82.01", cudaLTSDriver().ImageSHA}
}

// DriverForSKU picks the NVIDIA driver for a VM size name (case-insensitive). Sizes with NVIDIA
// vGPU slices (converged A10, RTX PRO 6000 Blackwell) need GRID drivers; NCv1 needs the legacy CUDA
// branch; everything else gets CUDA LTS, which is also the safe default for an unknown size.
func DriverForSKU(sku string) GPUDriver {
	s := strings.ToLower(sku)
	switch {
	case isConvergedA10(s):
		return gridDriver()
	case strings.Contains(s, "_rtxpro6000bse_v6"):
		return gridV20Driver()
	case strings.HasPrefix(s, "standard_nc") && !strings.Contains(s, "_v"):
		return cudaLegacyDriver()
	default:
		return cudaLTSDriver()
	}
}

// isConvergedA10 matches NVads_A10_v5 and NCads_A10_v4 sizes (lower-case).
func isConvergedA10(s string) bool {
	return (strings.HasPrefix(s, "standard_nv") && strings.HasSuffix(s, "ads_a10_v5")) ||
		(strings.HasPrefix(s, "standard_nc") && strings.HasSuffix(s, "ads_a10_v4"))
}
