package bootstrap

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
)

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

// DriverForSKU picks the NVIDIA driver for a VM size name (case-insensitive). The sizes whose GPUs
// need GRID drivers are listed by name, as AKS lists them: the converged A10 sizes (a CUDA driver
// fails to install there) and the RTX PRO 6000 Blackwell sizes (GRID v20). NCv1 needs the legacy CUDA
// branch; everything else gets CUDA LTS, which is also the default for an unknown size.
func DriverForSKU(sku string) GPUDriver {
	s := strings.ToLower(sku)
	switch {
	case gridV20Sizes.Has(s):
		return gridV20Driver()
	case convergedSizes.Has(s):
		return gridDriver()
	case strings.HasPrefix(s, "standard_nc") && !strings.Contains(s, "_v"):
		return cudaLegacyDriver()
	default:
		return cudaLTSDriver()
	}
}

// convergedSizes run a "converged" driver serving both CUDA and graphics workloads; a plain CUDA
// driver install fails on them.
var convergedSizes = sets.New(
	"standard_nv6ads_a10_v5", "standard_nv12ads_a10_v5", "standard_nv18ads_a10_v5", "standard_nv36ads_a10_v5",
	"standard_nv72ads_a10_v5", "standard_nv36adms_a10_v5",
	"standard_nc8ads_a10_v4", "standard_nc16ads_a10_v4", "standard_nc32ads_a10_v4",
)

// gridV20Sizes are the RTX PRO 6000 Blackwell Server Edition sizes, which need the GRID v20 driver.
var gridV20Sizes = sets.New(
	"standard_nc24lds_xl_rtxpro6000bse_v6",
	"standard_nc36ds_xl_rtxpro6000bse_v6", "standard_nc36lds_xl_rtxpro6000bse_v6",
	"standard_nc72ds_xl_rtxpro6000bse_v6", "standard_nc72lds_xl_rtxpro6000bse_v6",
	"standard_nc144ds_xl_rtxpro6000bse_v6", "standard_nc144lds_xl_rtxpro6000bse_v6",
	"standard_nc288ds_xl_rtxpro6000bse_v6", "standard_nc288lds_xl_rtxpro6000bse_v6",
)
