package instancetype

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/requirements"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func TestOptionErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Options)
		want   string
	}{
		{"no region", func(o *Options) { o.Region = " " }, `bad options: Region: must name an ARM region, got " "`},
		{"negative overhead", func(o *Options) { o.VMMemoryOverheadPercent = -0.1 },
			"bad options: VMMemoryOverheadPercent: must be in [0, 1) (a fraction, 0 for the default 0.075), got -0.1"},
		{"overhead one", func(o *Options) { o.VMMemoryOverheadPercent = 1 }, "bad options: VMMemoryOverheadPercent: must be in [0, 1)"},
		{"overhead as percent", func(o *Options) { o.VMMemoryOverheadPercent = 7.5 }, "got 7.5"},
		{"overhead NaN", func(o *Options) { o.VMMemoryOverheadPercent = math.NaN() }, "got NaN"},
		{"policy", func(o *Options) { o.ReservationPolicy = "Generous" },
			`bad options: ReservationPolicy: must be "MaxPods" or "AKSBrackets", got "Generous"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := defaultOptions(t, "eastus")
			tc.mutate(&opts)
			cat, err := readARMSKUs(fixture(t, "eastus"), "eastus").Build(opts)
			require.ErrorIs(t, err, ErrBadOptions)
			var optErr *api.FieldError
			require.ErrorAs(t, err, &optErr)
			assert.Nil(t, cat)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestOverheadOption(t *testing.T) {
	opts := defaultOptions(t, "southcentralus")
	opts.VMMemoryOverheadPercent = 0.1
	it := mustFind(t, build(t, fixture(t, "southcentralus"), opts), "Standard_D2s_v3")
	assert.Equal(t, int64(8589934592-858993460), it.Capacity.Memory().Value())
}

func TestBuildEmptyAndNilNodeClass(t *testing.T) {
	cat := build(t, nil, Options{Region: "EastUS"})
	assert.Equal(t, &Catalogue{Region: "eastus", InstanceTypes: []*InstanceType{}, Excluded: []Excluded{}}, cat)
}

// TestBuildDeterministic builds the same input twice and from shuffled input: the JSON must be
// byte-identical, and the input must not change.
func TestBuildDeterministic(t *testing.T) {
	skus := fixture(t, "southcentralus")
	before, err := json.Marshal(skus)
	require.NoError(t, err)
	first := marshal(t, build(t, skus, defaultOptions(t, "southcentralus")))
	reversed := make([]*armSKU, len(skus))
	for i, s := range skus {
		reversed[len(skus)-1-i] = s
	}
	second := marshal(t, build(t, reversed, defaultOptions(t, "southcentralus")))
	assert.Equal(t, string(first), string(second))
	after, err := json.Marshal(skus)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after), "Build must not modify its input")
}

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	return append(data, '\n')
}

// TestGoldenSouthcentralus writes the whole southcentralus catalogue as JSON; run with -update after
// an intended change and review the diff.
func TestGoldenSouthcentralus(t *testing.T) {
	got := marshal(t, build(t, fixture(t, "southcentralus"), defaultOptions(t, "southcentralus")))
	path := filepath.Join("testdata", "catalogue-southcentralus.golden.json")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -run TestGoldenSouthcentralus -update to create it")
	assert.Equal(t, string(want), string(got))
}

// TestWholeCatalogueEastus checks invariants over the 1,293-size eastus catalogue.
func TestWholeCatalogueEastus(t *testing.T) {
	skus := catalog(t, "eastus")
	known, err := DefaultKnownSKUs()
	require.NoError(t, err)
	opts := defaultOptions(t, "eastus")
	opts.KnownSKUs = known
	cat := build(t, skus, opts)

	require.Equal(t, len(skus), len(cat.InstanceTypes)+len(cat.Excluded), "every SKU is accounted for")
	seen := map[string]bool{}
	for _, e := range cat.Excluded {
		assert.NotEmpty(t, e.Reason, e.Name)
		assert.NotEmpty(t, e.Kind, e.Name)
		seen[e.Name] = true
	}
	for _, it := range cat.InstanceTypes {
		assert.False(t, seen[it.Name], "%s both built and excluded", it.Name)
		seen[it.Name] = true
		checkInstanceType(t, it)
	}
	assert.Len(t, seen, len(skus))

	kinds := map[ExclusionKind]int{}
	for _, e := range cat.Excluded {
		kinds[e.Kind]++
	}
	assert.Equal(t, map[ExclusionKind]int{
		ExcludedAKSRestricted: 5, ExcludedKarpenterRestricted: 2, ExcludedTooFewCPUs: 14, ExcludedTooLittleMemory: 3,
		ExcludedUnsupportedGPU: 7, ExcludedConstrainedCPU: 242, ExcludedConfidential: 147, ExcludedGPUDriver: 5,
	}, kinds, "NP (FPGA) and NVv4 (MI25) are not in the supported-GPU list; the AMD V710 sizes need gpu.mode None")
	assert.Equal(t, 868, len(cat.InstanceTypes))
	// Spot prices are known for a few common sizes only (the rest are priced like on-demand), so a
	// real spot price wins. The raw catalogue has no disk capabilities and PremiumIO everywhere, so
	// every size carries the same P10 managed OS disk ($0.027/h) and the order is the VMs' order.
	assert.Equal(t, "Standard_F2s_v2", cat.InstanceTypes[0].Name, "cheapest first")
	for i := 1; i < len(cat.InstanceTypes); i++ {
		prev, _ := cat.InstanceTypes[i-1].Offerings.Cheapest()
		next, _ := cat.InstanceTypes[i].Offerings.Cheapest()
		assert.LessOrEqual(t, prev.Price, next.Price, cat.InstanceTypes[i].Name)
	}
}

// checkInstanceType asserts what must hold for every built instance type.
func checkInstanceType(t *testing.T, it *InstanceType) {
	t.Helper()
	alloc := it.Allocatable()
	for name, capQ := range it.Capacity {
		a := alloc[name]
		assert.LessOrEqual(t, a.Cmp(capQ), 0, "%s %s: allocatable above capacity", it.Name, name)
		assert.GreaterOrEqual(t, a.Sign(), 0, "%s %s negative", it.Name, name)
	}
	assert.Len(t, alloc, len(it.Capacity))
	assert.Positive(t, alloc.Memory().Value(), it.Name)

	perZone := 1
	if it.SKU.LowPriorityCapable {
		perZone = 2
	}
	assert.Len(t, it.Offerings, (len(it.SKU.Zones)+1)*perZone, it.Name)
	for i := 1; i < len(it.Offerings); i++ {
		assert.LessOrEqual(t, compareOfferings(it.Offerings[i-1], it.Offerings[i]), 0, it.Name)
	}

	labels := it.Requirements.Labels()
	assert.Equal(t, it.Name, labels[api.LabelInstanceType])
	assert.Equal(t, it.Name, labels[api.LabelSKUName])
	for key, value := range labels {
		assert.True(t, it.Requirements.Get(key).Has(value), "%s: label %s=%s", it.Name, key, value)
	}
	// The instance type's requirements must admit every available offering's.
	for _, o := range it.Offerings.Available() {
		for key, r := range o.Requirements {
			for _, v := range r.Values() {
				assert.True(t, it.Requirements.Get(key).Has(v), "%s: offering %s=%s", it.Name, key, v)
			}
		}
		assert.NoError(t, it.Requirements.Compatible(o.Requirements, nil), it.Name)
	}
	for _, key := range []string{api.LabelArch, api.LabelOS, api.LabelZone, api.LabelRegion, api.LabelCapacityType,
		api.LabelSKUFamily, api.LabelSKUSeries, api.LabelSKUVersion, api.LabelSKUCPU, api.LabelSKUMemory,
		api.LabelSKUGPUCount, api.LabelSKUHyperVGeneration, api.LabelPlacementScope, api.LabelAKSMode} {
		assert.True(t, it.Requirements.Has(key), "%s lacks %s", it.Name, key)
	}
	gpus := it.Capacity[ResourceNVIDIAGPU]
	assert.Equal(t, it.SKU.GPUs, gpus.Value()+it.Capacity.Name(ResourceAMDGPU, "").Value(), it.Name)
	assert.Equal(t, corev1.NodeSelectorOpIn, it.Requirements.Get(api.LabelSKUCPU).Operator())
}

func TestWestus2Catalogue(t *testing.T) {
	cat := build(t, catalog(t, "westus2"), defaultOptions(t, "westus2"))
	assert.NotEmpty(t, cat.InstanceTypes)
	for _, it := range cat.InstanceTypes {
		assert.Len(t, it.Offerings, 8, it.Name)
	}
}

func TestDefaultKnownSKUs(t *testing.T) {
	known, err := DefaultKnownSKUs()
	require.NoError(t, err)
	assert.Len(t, known, 1502)
	assert.True(t, known["Standard_D2s_v3"])
	assert.False(t, known["name"])
}

func TestLoadDefault(t *testing.T) {
	list, err := LoadDefault("westus2")
	require.NoError(t, err)
	assert.Len(t, list.SKUs, 1194)
	assert.Empty(t, list.Unreadable)
	_, err = LoadDefault("mars")
	assert.ErrorContains(t, err, "mars")
}

func TestRequirementsCompatibleWithNodePool(t *testing.T) {
	cat := build(t, fixture(t, "southcentralus"), defaultOptions(t, "southcentralus"))
	pool := requirements.New(
		requirements.NewRequirement(api.LabelSKUFamily, corev1.NodeSelectorOpIn, "D"),
		requirements.NewRequirement(api.LabelSKUCPU, corev1.NodeSelectorOpLt, "5"),
		requirements.NewRequirement(api.LabelArch, corev1.NodeSelectorOpIn, api.ArchAMD64),
		requirements.NewRequirement(api.LabelSKUEphemeralOSMaxSize, corev1.NodeSelectorOpGt, "100000"),
	)
	for _, it := range cat.InstanceTypes {
		assert.Error(t, it.Requirements.Compatible(pool, nil), it.Name, "no SKU has a 100 TB ephemeral disk")
	}
	pool = requirements.New(pool.Get(api.LabelSKUFamily), pool.Get(api.LabelSKUCPU), pool.Get(api.LabelArch))
	var fits []string
	for _, it := range cat.InstanceTypes {
		if it.Requirements.Compatible(pool, nil) == nil {
			fits = append(fits, it.Name)
		}
	}
	assert.ElementsMatch(t, []string{"Standard_D2_v2", "Standard_D2_v3", "Standard_D2_v5", "Standard_D2as_v6",
		"Standard_D2s_v3", "Standard_D4s_v3", "Standard_DS2_v2"}, fits)
}
