package instancetype

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// GPU manufacturers, as the sku-gpu-manufacturer label spells them.
const (
	GPUManufacturerNVIDIA = "nvidia"
	GPUManufacturerAMD    = "amd"
)

// OS families a GPU size may be supported on, as the supported-GPU list spells them. The catalogue
// asks for OSUbuntu or OSAzureLinux; an Azure Linux image qualifies with azurelinux or azurelinux3.
const (
	OSUbuntu      = "ubuntu"
	OSAzureLinux  = "azurelinux"
	OSAzureLinux3 = "azurelinux3"
	OSWindows     = "windows"
)

// Extended resource names the device plugins advertise.
const (
	ResourceNVIDIAGPU corev1.ResourceName = "nvidia.com/gpu"
	ResourceAMDGPU    corev1.ResourceName = "amd.com/gpu"
)

// GPU describes a VM size AKS supports as a GPU node.
type GPU struct {
	// Manufacturer is nvidia or amd.
	Manufacturer string
	// OS lists the OS families with a supported driver stack (ubuntu, azurelinux, azurelinux3, windows).
	OS []string
	// ManagedDriver is true when AKS can install the driver itself (gpu.mode Driver). AKS installs
	// NVIDIA drivers only; AMD GPUs need gpu.mode None and an operator.
	ManagedDriver bool
}

// Resource is the extended resource the size's device plugin advertises.
func (g GPU) Resource() corev1.ResourceName {
	if g.Manufacturer == GPUManufacturerAMD {
		return ResourceAMDGPU
	}
	return ResourceNVIDIAGPU
}

// SupportsOS reports whether os (OSUbuntu or OSAzureLinux) has a driver stack for the size; an Azure
// Linux image is served by either Azure Linux entry of the list.
func (g GPU) SupportsOS(os string) bool {
	if os == OSAzureLinux {
		return slices.Contains(g.OS, OSAzureLinux) || slices.Contains(g.OS, OSAzureLinux3)
	}
	return slices.Contains(g.OS, os)
}

// supportedGPUs is the list of GPU sizes AKS supports, one row per size: sku (lower case),
// gpu_vendor, os_families (space-separated). It is a copy of the Karpenter provider for Azure's list
// (pkg/utils/supported-gpus.yaml). A size is a GPU size because its name is listed, not because ARM
// reports GPUs: ARM leaves the GPUs capability empty for some sizes (the AMD NV*ads_V710_v5).
//
//go:embed supported-gpus.csv
var supportedGPUs []byte

// gpuList parses the embedded list once; TestEmbeddedGPUListParses keeps it well formed.
var gpuList = sync.OnceValues(func() (map[string]GPU, error) { return ParseGPUList(bytes.NewReader(supportedGPUs)) })

// ErrGPUList classifies a malformed supported-GPU list.
var ErrGPUList = errors.New("supported-GPU list")

// ParseGPUList reads a supported-GPU list (header sku,gpu_vendor,os_families) into a table keyed by
// the lower-case size name.
func ParseGPUList(r io.Reader) (map[string]GPU, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGPUList, err)
	}
	if len(rows) == 0 || !slices.Equal(rows[0], []string{"sku", "gpu_vendor", "os_families"}) {
		return nil, fmt.Errorf("%w: header must be sku,gpu_vendor,os_families", ErrGPUList)
	}
	table := make(map[string]GPU, len(rows)-1)
	for i, row := range rows[1:] {
		name, g, err := parseGPURow(row)
		if err != nil {
			return nil, fmt.Errorf("%w: row %d: %w", ErrGPUList, i+2, err)
		}
		if _, dup := table[name]; dup {
			return nil, fmt.Errorf("%w: row %d: sku %q listed twice", ErrGPUList, i+2, name)
		}
		table[name] = g
	}
	return table, nil
}

func parseGPURow(row []string) (string, GPU, error) {
	name := strings.ToLower(strings.TrimSpace(row[0]))
	if name == "" {
		return "", GPU{}, errors.New("sku is empty")
	}
	vendor := row[1]
	if vendor != GPUManufacturerNVIDIA && vendor != GPUManufacturerAMD {
		return "", GPU{}, fmt.Errorf("gpu_vendor %q: want nvidia or amd", vendor)
	}
	g := GPU{Manufacturer: vendor, OS: strings.Fields(row[2]), ManagedDriver: vendor == GPUManufacturerNVIDIA}
	for _, os := range g.OS {
		if !slices.Contains([]string{OSUbuntu, OSAzureLinux, OSAzureLinux3, OSWindows}, os) {
			return "", GPU{}, fmt.Errorf("os_families: unknown family %q", os)
		}
	}
	return name, g, nil
}

// LookupGPU returns the GPU support of a VM size by name (case-insensitive, an _Promo suffix ignored,
// as upstream's pkg/utils/gpu.go normalises names), if AKS supports it as a GPU node.
func LookupGPU(skuName string) (GPU, bool) {
	table, err := gpuList()
	if err != nil {
		return GPU{}, false
	}
	g, ok := table[strings.TrimSuffix(strings.ToLower(skuName), "_promo")]
	g.OS = slices.Clone(g.OS) // the table is shared; callers get their own copy
	return g, ok
}

// GPUSizes returns the names (lower case) of every listed GPU size, sorted.
func GPUSizes() []string {
	table, _ := gpuList()
	names := make([]string, 0, len(table))
	for name := range table {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
