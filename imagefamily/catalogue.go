package imagefamily

import (
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/kubeletconfig"
	"k8s.io/apimachinery/pkg/util/sets"
)

// ShapeOf returns the shape of a catalogue instance type, carrying its reservation so that the kubelet
// flags repeat the catalogue's numbers exactly.
func ShapeOf(it *instancetype.InstanceType) NodeShape {
	sku := it.SKU
	shape := NodeShape{
		SKUName:           it.Name,
		Arch:              sku.Arch,
		HyperVGenerations: sets.List(sku.HyperVGenerations),
		VCPUs:             sku.VCPUs,
		MemoryGiB:         sku.MemoryGiB,
		EphemeralOSDisk:   it.EphemeralOSDisk.Ephemeral(),
		Labels:            it.Requirements.Labels(),
		Reservation: &kubeletconfig.Reservation{
			KubeReserved:      it.Overhead.KubeReserved.DeepCopy(),
			SystemReserved:    it.Overhead.SystemReserved.DeepCopy(),
			EvictionThreshold: it.Overhead.EvictionThreshold.DeepCopy(),
		},
	}
	if g, ok := instancetype.LookupGPU(it.Name); ok {
		shape.GPU = &GPUInfo{Manufacturer: g.Manufacturer, Count: sku.GPUs, ManagedDriver: g.ManagedDriver}
	}
	return shape
}
