package imagefamily

import (
	"errors"
	"math"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/kubeletconfig"
)

// NodeShape is what image choice and bootstrap need to know about the VM size. ShapeOf fills it from
// a catalogue instance type; tests and tools may also write one by hand.
type NodeShape struct {
	// SKUName is the VM size, e.g. Standard_D4s_v5.
	SKUName string
	// Arch is amd64 or arm64.
	Arch string
	// HyperVGenerations are the generations the size boots ("1", "2").
	HyperVGenerations []string
	// VCPUs and MemoryGiB are the nominal size, as Azure advertises it.
	VCPUs     int64
	MemoryGiB float64
	// Labels are the instance type's single-valued labels (karpenter.azure.com/sku-*, arch, os,
	// os-sku, ...), which the node carries as the Karpenter provider for Azure merges them.
	Labels map[string]string
	// GPU describes the size's GPUs; nil for none.
	GPU *GPUInfo
	// EphemeralOSDisk says the OS disk goes on local storage.
	EphemeralOSDisk bool
	// Reservation is the catalogue's reservation for the size. When set it is written into the kubelet
	// flags as it is, so the node enforces exactly what the scheduler planned with; when nil, Generate
	// asks kubeletconfig.Reserve.
	Reservation *kubeletconfig.Reservation
}

// GPUInfo describes a size's GPUs.
type GPUInfo struct {
	// Manufacturer is nvidia or amd.
	Manufacturer string
	// Count is the number of GPUs.
	Count int64
	// ManagedDriver is true when AKS images can install the driver (NVIDIA only).
	ManagedDriver bool
}

// validate checks the shape; the SKU name reaches the Machine and bootstrap bodies, so it must be set.
func (s NodeShape) validate() error {
	var errs []error
	if s.SKUName == "" {
		errs = append(errs, newError(ErrInvalid, "shape.SKUName", nil, "is required"))
	}
	if s.Arch != api.ArchAMD64 && s.Arch != api.ArchARM64 {
		errs = append(errs, newError(ErrInvalid, "shape.Arch", s.Arch, "must be %s or %s", api.ArchAMD64, api.ArchARM64))
	}
	if s.VCPUs < 1 {
		errs = append(errs, newError(ErrInvalid, "shape.VCPUs", nil, "must be at least 1"))
	}
	if math.IsNaN(s.MemoryGiB) || s.MemoryGiB <= 0 {
		errs = append(errs, newError(ErrInvalid, "shape.MemoryGiB", nil, "must be positive"))
	}
	return errors.Join(errs...)
}

// nvidiaDriverInstall reports whether the image should install NVIDIA drivers: an NVIDIA size AKS has
// drivers for, unless the node class leaves drivers to an operator (gpu.mode None).
func (s NodeShape) nvidiaDriverInstall(nodeClass *api.AKSNodeClass) bool {
	if s.GPU == nil || s.GPU.Manufacturer != "nvidia" || !s.GPU.ManagedDriver || s.GPU.Count < 1 {
		return false
	}
	if nodeClass != nil && nodeClass.Spec.GPU != nil && nodeClass.Spec.GPU.Mode != nil {
		return *nodeClass.Spec.GPU.Mode != api.GPUModeNone
	}
	return true
}
