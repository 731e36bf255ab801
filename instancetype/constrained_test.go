package instancetype

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestConstrainedSizeReason reads the active and total vCPUs of real constrained sizes: the total is
// ARM's vCPUs, not the number in the size name (DS11 is a 2-vCPU size).
// upstream: pkg/providers/instancetype/instancetypes.go (hasConstrainedCPUs excludes these sizes)
func TestConstrainedSizeReason(t *testing.T) {
	tests := []struct{ sku, reason string }{
		{"Standard_DS11-1_v2", "constrained-core size: 1 of 2 vCPUs active"},
		{"Standard_DS13-2_v2", "constrained-core size: 2 of 8 vCPUs active"},
		{"Standard_E16-4ads_v5", "constrained-core size: 4 of 16 vCPUs active"},
		{"Standard_E128-32s_v6", "constrained-core size: 32 of 128 vCPUs active"},
	}
	cat := build(t, catalog(t, "eastus"), defaultOptions(t, "eastus"))
	reasons := map[string]Excluded{}
	for _, e := range cat.Excluded {
		reasons[e.Name] = e
	}
	for _, tc := range tests {
		t.Run(tc.sku, func(t *testing.T) {
			assert.Equal(t, Excluded{Name: tc.sku, Kind: ExcludedConstrainedCPU, Reason: tc.reason}, reasons[tc.sku])
		})
	}
}
