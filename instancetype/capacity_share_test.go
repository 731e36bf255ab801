package instancetype

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
)

// TestSharedResourceLists: instance types of equal vCPUs, memory and GPUs share their Capacity and
// allocatable lists, and every type's lists are the ones computed for it alone, for each embedded
// region and for a node class whose max pods and OS disk change both lists.
func TestSharedResourceLists(t *testing.T) {
	big := &api.AKSNodeClass{}
	big.Name = "big"
	big.Default()
	gb, pods := int32(512), int32(30)
	big.Spec.OSDiskSizeGB = &gb
	big.Spec.MaxPods = &pods
	tests := []struct {
		region    string
		nodeClass *api.AKSNodeClass
	}{
		{"eastus", nil},
		{"westus2", nil},
		{"eastus", big},
	}
	for _, tt := range tests {
		t.Run(tt.region, func(t *testing.T) {
			opts := defaultOptions(t, tt.region)
			opts.NodeClass = tt.nodeClass
			cat := build(t, catalog(t, tt.region), opts)
			s, err := opts.resolve()
			require.NoError(t, err)
			distinct := map[uintptr]bool{}
			for _, it := range cat.InstanceTypes {
				c := &candidate{sku: it.SKU}
				if g, ok := LookupGPU(it.SKU.Name); ok {
					c.gpu = &g
				}
				want := computeCapacity(c, s.capacity)
				require.Equal(t, want, it.Capacity, it.Name)
				require.Equal(t, allocatable(want, it.Overhead), it.Allocatable(), it.Name)
				distinct[reflect.ValueOf(it.Capacity).Pointer()] = true
			}
			assert.Less(t, len(distinct), len(cat.InstanceTypes)/2, "lists are shared")
		})
	}
}
