package instancetype

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// GPU manufacturers, as the sku-gpu-manufacturer label spells them.
const (
	GPUManufacturerNVIDIA = "nvidia"
	GPUManufacturerAMD    = "amd"
)

// OS families a GPU series may be supported on, as napkit's image families map to them.
const (
	OSUbuntu     = "ubuntu"
	OSAzureLinux = "azurelinux"
)

// Extended resource names the device plugins advertise.
const (
	ResourceNVIDIAGPU corev1.ResourceName = "nvidia.com/gpu"
	ResourceAMDGPU    corev1.ResourceName = "amd.com/gpu"
)

// GPUSeries describes one GPU VM series AKS can run.
type GPUSeries struct {
	// Manufacturer is nvidia or amd.
	Manufacturer string
	// Model is the GPU model, for people reading the table (the sku-gpu-name label comes from the name).
	Model string
	// OS lists the Linux OS families with a supported GPU driver stack; empty means Windows only.
	OS []string
	// ManagedDriver is true when AKS installs the driver itself (gpu.mode Driver). AKS installs NVIDIA
	// drivers only; AMD GPUs need gpu.mode None and an operator.
	ManagedDriver bool
}

// Resource is the extended resource the series' device plugin advertises.
func (g GPUSeries) Resource() corev1.ResourceName {
	if g.Manufacturer == GPUManufacturerAMD {
		return ResourceAMDGPU
	}
	return ResourceNVIDIAGPU
}

// SupportsOS reports whether os (OSUbuntu or OSAzureLinux) has a driver stack for the series.
func (g GPUSeries) SupportsOS(os string) bool { return slices.Contains(g.OS, os) }

var (
	osUbuntu = []string{OSUbuntu}
	osBoth   = []string{OSUbuntu, OSAzureLinux}
)

func nvidia(model string, os []string) GPUSeries {
	return GPUSeries{Manufacturer: GPUManufacturerNVIDIA, Model: model, OS: os, ManagedDriver: true}
}

func amd(model string, os []string) GPUSeries {
	return GPUSeries{Manufacturer: GPUManufacturerAMD, Model: model, OS: os}
}

// gpuSeries is the table of GPU VM series AKS supports, keyed by the size name without its vCPU count
// (VMSize.seriesKey). Sources: the AKS GPU documentation and the size list of the Karpenter provider
// for Azure (pkg/utils/supported-gpus.yaml): Azure Linux has drivers for the T4, V100 and data-centre
// A100/H100/H200 series; the rest run on Ubuntu only. NVv4 (AMD MI25) is listed so it is excluded with
// a clear reason: Azure supports it on Windows only. Any SKU with GPUs > 0 that is not here (NP FPGA
// sizes, NVv2, NG, confidential NCC) is excluded as an unsupported GPU.
var gpuSeries = map[string]GPUSeries{
	// First generation NC (K80), NV (M60) and their promo sizes: retired, kept for old subscriptions.
	"NC": nvidia("K80", osUbuntu), "NCr": nvidia("K80", osUbuntu),
	"NC_Promo": nvidia("K80", osUbuntu), "NCr_Promo": nvidia("K80", osUbuntu),
	"NV": nvidia("M60", osUbuntu), "NVr": nvidia("M60", osUbuntu), "NV_Promo": nvidia("M60", osUbuntu),
	"NCs_v2": nvidia("P100", osUbuntu), "NCrs_v2": nvidia("P100", osUbuntu),
	"NDs": nvidia("P40", osUbuntu), "NDrs": nvidia("P40", osUbuntu),
	"NCs_v3": nvidia("V100", osBoth), "NCrs_v3": nvidia("V100", osBoth),
	"NDrs_v2":      nvidia("V100", osBoth),
	"NDs_v3":       nvidia("V100", osBoth),
	"NVs_v3":       nvidia("M60", osUbuntu),
	"NCas_T4_v3":   nvidia("T4", osBoth),
	"NCads_A10_v4": nvidia("A10", osUbuntu),
	"NVads_A10_v5": nvidia("A10", osUbuntu), "NVadms_A10_v5": nvidia("A10", osUbuntu),
	"NCads_A100_v4": nvidia("A100", osBoth),
	"NDasr_v4":      nvidia("A100", osBoth), "NDasr_A100_v4": nvidia("A100", osBoth),
	"NDamsr_A100_v4": nvidia("A100", osBoth), "NDamsrf_A100_v4": nvidia("A100", osBoth),
	"NDams_v4": nvidia("A100", osBoth), "NDams_A100_v4": nvidia("A100", osBoth),
	"NDamsf_A100_v4": nvidia("A100", osBoth), "NDams_A100_flex_v4": nvidia("A100", osBoth),
	"NCads_H100_v5": nvidia("H100", osBoth), "NCadis_H100_v5": nvidia("H100", osBoth),
	"NDisr_H100_v5": nvidia("H100", osBoth), "NDis_H100_v5": nvidia("H100", osBoth),
	"NDis_noib_H100_v5": nvidia("H100", osBoth), "NDis_flex_H100_v5": nvidia("H100", osBoth),
	"NDisf_H100_v5": nvidia("H100", osBoth), "NDisrf_H100_v5": nvidia("H100", osBoth),
	"NDisr_H200_v5": nvidia("H200", osBoth), "NDis_H200_v5": nvidia("H200", osBoth),
	"NDisf_H200_v5": nvidia("H200", osBoth), "NDisrf_H200_v5": nvidia("H200", osBoth),
	"NDisr_NDR_GB200_v6": nvidia("GB200", osUbuntu), "NDisr_GB300_v6": nvidia("GB300", osUbuntu),
	"NClds_xl_RTXPRO6000BSE_v6": nvidia("RTX PRO 6000 Blackwell Server Edition", osUbuntu),
	"NVads_V710_v5":             amd("Radeon Pro V710", osUbuntu), "NVadms_V710_v5": amd("Radeon Pro V710", osUbuntu),
	"NDisr_MI300X_v5": amd("Instinct MI300X", osUbuntu), "NDis_MI300X_v5": amd("Instinct MI300X", osUbuntu),
	"NVas_v4": amd("Radeon Instinct MI25", nil),
}

// LookupGPU returns the GPU series of size, if AKS supports it.
func LookupGPU(size VMSize) (GPUSeries, bool) {
	g, ok := gpuSeries[size.seriesKey()]
	g.OS = slices.Clone(g.OS) // the table is shared; callers get their own copy
	return g, ok
}
