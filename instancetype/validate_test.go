package instancetype

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
)

// handSKU is a valid SKU record as a caller without ARM would write it.
func handSKU(mutate func(*SKU)) *SKU {
	s := &SKU{
		Name: "Standard_D4s_v5", Size: "D4s_v5", Family: "standardDSv5Family", VCPUs: 4, VCPUsAvailable: 4,
		MemoryGiB: 16, Arch: api.ArchAMD64, HyperVGenerations: sets.New("1", "2"), Zones: []string{"1"},
		OfferedInRegion: true,
	}
	if mutate != nil {
		mutate(s)
	}
	return s
}

// Build checks hand-made records with SKU.Validate: a bad one is excluded with a reason naming the
// field and value, never built from.
func TestBuildValidatesSKUs(t *testing.T) {
	tests := []struct {
		name   string
		sku    *SKU
		want   string // exclusion name
		reason string
	}{
		{"nil", nil, "(entry 0)", "(unnamed SKU): record: missing"},
		{"no name", handSKU(func(s *SKU) { s.Name = "" }), "(entry 0)", "(unnamed SKU): name: missing"},
		{"no size", handSKU(func(s *SKU) { s.Size = "" }), "Standard_D4s_v5", "Standard_D4s_v5: size: missing"},
		{"negative vCPUs", handSKU(func(s *SKU) { s.VCPUs = -4 }), "Standard_D4s_v5",
			`Standard_D4s_v5: vCPUs: want an integer from 0 to 1048576, got "-4"`},
		{"huge GPUs", handSKU(func(s *SKU) { s.GPUs = 1 << 40 }), "Standard_D4s_v5",
			`Standard_D4s_v5: gpus: want an integer from 0 to 1048576, got "1099511627776"`},
		{"negative disk", handSKU(func(s *SKU) { s.CachedDiskBytes = -1 }), "Standard_D4s_v5",
			`Standard_D4s_v5: cachedDiskBytes: want an integer from 0 to 1125899906842624, got "-1"`},
		{"NaN memory", handSKU(func(s *SKU) { s.MemoryGiB = math.NaN() }), "Standard_D4s_v5",
			`Standard_D4s_v5: memoryGiB: want a number from 0 to 1048576, got "NaN"`},
		{"arch", handSKU(func(s *SKU) { s.Arch = "x86" }), "Standard_D4s_v5",
			`Standard_D4s_v5: arch: want amd64 or arm64, got "x86"`},
		{"no generation", handSKU(func(s *SKU) { s.HyperVGenerations = nil }), "Standard_D4s_v5",
			`Standard_D4s_v5: hyperVGenerations: want a non-empty set of "1" and "2", got ""`},
		{"generation 3", handSKU(func(s *SKU) { s.HyperVGenerations = sets.New("2", "3") }), "Standard_D4s_v5",
			`Standard_D4s_v5: hyperVGenerations: want a non-empty set of "1" and "2", got "2,3"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cat, err := Build([]*SKU{tc.sku}, Options{Region: "eastus", Network: api.DefaultClusterNetwork()})
			require.NoError(t, err)
			assert.Empty(t, cat.InstanceTypes)
			assert.Equal(t, []Excluded{{Name: tc.want, Kind: ExcludedBadSKU, Reason: tc.reason}}, cat.Excluded)
		})
	}

	cat, err := Build([]*SKU{handSKU(nil)}, Options{Region: "eastus", Network: api.DefaultClusterNetwork()})
	require.NoError(t, err)
	require.Len(t, cat.InstanceTypes, 1, "the unchanged record builds: %v", cat.Excluded)
	assert.Equal(t, []string{"1"}, cat.InstanceTypes[0].SKU.Zones)
}

// Every record ReadSKUs returns passes Validate: the reader and the check agree on what is readable.
func TestReadSKUsPassValidate(t *testing.T) {
	for _, region := range []string{"eastus", "westus2"} {
		list := readARMSKUs(catalog(t, region), region)
		require.NotEmpty(t, list.SKUs)
		for _, s := range list.SKUs {
			assert.NoError(t, s.Validate())
		}
	}
}

// An unreadable record whose name AKS restricts is excluded for the restriction, as a readable one
// would be: the name check comes first for every record.
func TestUnreadableRestrictedName(t *testing.T) {
	list := &SKUList{Unreadable: []Excluded{
		{Name: "Standard_F1", Kind: ExcludedBadSKU, Reason: "x"},
		{Name: "Standard_Odd", Kind: ExcludedBadSKU, Reason: "y"},
	}}
	cat, err := list.Build(Options{Region: "eastus", Network: api.DefaultClusterNetwork()})
	require.NoError(t, err)
	assert.Equal(t, []Excluded{
		{Name: "Standard_F1", Kind: ExcludedAKSRestricted, Reason: "AKS does not allow this size for nodes"},
		{Name: "Standard_Odd", Kind: ExcludedBadSKU, Reason: "y"},
	}, cat.Excluded)
}
