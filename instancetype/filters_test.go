package instancetype

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

func names(cat *Catalogue) []string {
	var out []string
	for _, it := range cat.InstanceTypes {
		out = append(out, it.Name)
	}
	slices.Sort(out)
	return out
}

func exclusions(cat *Catalogue) map[string]ExclusionKind {
	out := map[string]ExclusionKind{}
	for _, e := range cat.Excluded {
		out[e.Name] = e.Kind
	}
	return out
}

// TestGlobalFiltersFixture is reference case 6 on the southcentralus fixture.
func TestGlobalFiltersFixture(t *testing.T) {
	cat := build(t, fixture(t, "southcentralus"), defaultOptions(t, "southcentralus"))
	assert.Equal(t, []string{
		"Standard_B20ms", "Standard_D128ds_v6", "Standard_D16plds_v5", "Standard_D2_v2", "Standard_D2_v3",
		"Standard_D2_v5", "Standard_D2as_v6", "Standard_D2s_v3", "Standard_D4s_v3", "Standard_D64s_v3",
		"Standard_DS2_v2", "Standard_E4d_v5", "Standard_F16s_v2", "Standard_NC16as_T4_v3",
		"Standard_NC24ads_A100_v4", "Standard_NC6s_v3",
	}, names(cat))
	assert.Equal(t, map[string]ExclusionKind{
		"Standard_A0":      ExcludedAKSRestricted,
		"Standard_B1s":     ExcludedAKSRestricted,
		"Standard_DC8s_v3": ExcludedConfidential,
		"Standard_M8-2ms":  ExcludedConstrainedCPU,
	}, exclusions(cat))
	assert.Equal(t, Excluded{Name: "Standard_M8-2ms", Kind: ExcludedConstrainedCPU,
		Reason: "constrained-core size: 2 of 8 vCPUs active"}, *exclusionOf(cat, "Standard_M8-2ms"))
}

func TestGlobalFiltersEachRule(t *testing.T) {
	withCaps := func(name string, caps ...string) *armSKU {
		return syntheticSKU(name, "4", "16", caps...)
	}
	otherRegion := withCaps("Standard_D4s_v5")
	otherRegion.Locations, otherRegion.LocationInfo[0].Location = []*string{ptr("westus")}, ptr("westus")
	restricted := withCaps("Standard_D8s_v5")
	restricted.Restrictions = []*armRestriction{{
		Type: ptr(restrictionLocation), Values: []*string{ptr("eastus")},
	}}
	disk := withCaps("Premium_LRS")
	disk.ResourceType = ptr("disks")
	badSize := withCaps("Standard_Weird")
	tests := []struct {
		raw    *armSKU
		name   string
		kind   ExclusionKind
		reason string
	}{
		{nil, "(entry 0)", ExcludedBadSKU, "(unnamed SKU): record: missing"},
		{withCaps("Standard_E64i_v3"), "Standard_E64i_v3", ExcludedKarpenterRestricted, "Karpenter on Azure does not use this size"},
		{withCaps("Standard_F1"), "Standard_F1", ExcludedAKSRestricted, "AKS does not allow this size for nodes"},
		{disk, "Premium_LRS", ExcludedNotVirtualMachine, "resourceType disks"},
		{withCaps("Standard_Bad", "MemoryGB", "abc"), "Standard_Bad", ExcludedBadSKU, `Standard_Bad: capability MemoryGB: want a number, got "abc"`},
		{badSize, "Standard_Weird", ExcludedBadSize, `VM size: no vCPU count after the family letters, got "Weird"`},
		{otherRegion, "Standard_D4s_v5", ExcludedNotInRegion, "the record does not list the region"},
		{restricted, "Standard_D8s_v5", ExcludedLocationRestricted, "a Location restriction names the region"},
		{syntheticSKU("Standard_X1", "1", "16"), "Standard_X1", ExcludedTooFewCPUs, "1 vCPUs, want at least 2"},
		{syntheticSKU("Standard_X2", "2", "3.25"), "Standard_X2", ExcludedTooLittleMemory, "3.25 GiB, want at least 3.5"},
		{withCaps("Standard_NP10s", "GPUs", "1"), "Standard_NP10s", ExcludedUnsupportedGPU, "1 GPUs, and the size is not in AKS's supported-GPU list"},
		{syntheticSKU("Standard_E8-2s_v5", "8", "64"), "Standard_E8-2s_v5", ExcludedConstrainedCPU, "constrained-core size: 2 of 8 vCPUs active"},
		{withCaps("Standard_EC8as_v5"), "Standard_EC8as_v5", ExcludedConfidential, "confidential VM size (DC/EC), which needs a confidential image"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cat := build(t, []*armSKU{tc.raw}, defaultOptions(t, "eastus"))
			assert.Empty(t, cat.InstanceTypes)
			assert.Equal(t, []Excluded{{Name: tc.name, Kind: tc.kind, Reason: tc.reason}}, cat.Excluded)
		})
	}
}

func TestGlobalFilterBoundaries(t *testing.T) {
	skus := []*armSKU{
		syntheticSKU("Standard_X2", "2", "3.5"),
		syntheticSKU("Standard_D4s_v5", "4", "16"),
		syntheticSKU("Standard_D4s_v5", "4", "16"),
	}
	cat := build(t, skus, defaultOptions(t, "eastus"))
	assert.Equal(t, []string{"Standard_D4s_v5", "Standard_X2"}, names(cat))
	assert.Equal(t, []Excluded{{Name: "Standard_D4s_v5", Kind: ExcludedDuplicate, Reason: "an earlier record has the same name"}}, cat.Excluded)
}

func TestLocationRestrictionFixture(t *testing.T) {
	raw := fixtureRecord(t, "westcentralus", "Standard_A0")
	raw.Name = ptr("Standard_A0x") // dodge the AKS-restricted name check to reach the restriction
	cat := build(t, []*armSKU{raw}, defaultOptions(t, "westcentralus"))
	assert.Equal(t, ExcludedLocationRestricted, cat.Excluded[0].Kind)
}

func nodeClass(mutate func(*api.AKSNodeClassSpec)) *api.AKSNodeClass {
	nc := &api.AKSNodeClass{}
	mutate(&nc.Spec)
	return nc
}

// gpuExtras are GPU sizes the fixtures lack, as synthetic records.
func gpuExtras() []*armSKU {
	return []*armSKU{
		syntheticSKU("Standard_NC8ads_A10_v4", "8", "110", "GPUs", "1"),
		syntheticSKU("Standard_NV4ads_V710_v5", "4", "16", "GPUs", "1"),
		syntheticSKU("Standard_NV4as_v4", "4", "14", "GPUs", "1"),
	}
}

func TestNodeClassFilters(t *testing.T) {
	tests := []struct {
		name     string
		spec     func(*api.AKSNodeClassSpec)
		excluded map[string]ExclusionKind // beyond the global exclusions
		included []string
	}{
		{"defaults", func(*api.AKSNodeClassSpec) {},
			map[string]ExclusionKind{"Standard_NV4ads_V710_v5": ExcludedGPUDriver, "Standard_NV4as_v4": ExcludedUnsupportedGPU},
			[]string{"Standard_NC8ads_A10_v4", "Standard_NC6s_v3", "Standard_D2_v2", "Standard_D16plds_v5"}},
		{"AzureLinux", func(s *api.AKSNodeClassSpec) { s.ImageFamily = ptr(api.ImageFamilyAzureLinux) },
			map[string]ExclusionKind{"Standard_NV4ads_V710_v5": ExcludedGPUImageFamily, "Standard_NV4as_v4": ExcludedUnsupportedGPU},
			[]string{"Standard_NC16as_T4_v3", "Standard_NC24ads_A100_v4", "Standard_NC6s_v3", "Standard_NC8ads_A10_v4"}},
		{"gpu mode None", func(s *api.AKSNodeClassSpec) { s.GPU = &api.GPU{Mode: ptr(api.GPUModeNone)} },
			map[string]ExclusionKind{"Standard_NV4as_v4": ExcludedUnsupportedGPU},
			[]string{"Standard_NV4ads_V710_v5", "Standard_NC24ads_A100_v4"}},
		{"encryption at host", func(s *api.AKSNodeClassSpec) { s.Security = &api.Security{EncryptionAtHost: ptr(true)} },
			map[string]ExclusionKind{"Standard_D2_v2": ExcludedEncryptionAtHost, "Standard_D2_v3": ExcludedEncryptionAtHost,
				"Standard_NC8ads_A10_v4": ExcludedEncryptionAtHost}, // the synthetic record does not declare it
			[]string{"Standard_D2s_v3"}},
		{"secure boot", func(s *api.AKSNodeClassSpec) { s.Security = &api.Security{SecureBoot: ptr(true)} },
			map[string]ExclusionKind{"Standard_D2_v2": ExcludedTrustedLaunch, "Standard_D2_v3": ExcludedTrustedLaunch,
				"Standard_D16plds_v5": ExcludedTrustedLaunch},
			[]string{"Standard_D2s_v3", "Standard_D128ds_v6"}},
		{"vTPM", func(s *api.AKSNodeClassSpec) { s.Security = &api.Security{VTPM: ptr(true), SecureBoot: ptr(false)} },
			map[string]ExclusionKind{"Standard_D2_v2": ExcludedTrustedLaunch, "Standard_D2_v3": ExcludedTrustedLaunch,
				"Standard_D16plds_v5": ExcludedTrustedLaunch},
			[]string{"Standard_D2s_v3"}},
		{"artifact streaming", func(s *api.AKSNodeClassSpec) { s.ArtifactStreaming = &api.ArtifactStreaming{Enabled: ptr(true)} },
			map[string]ExclusionKind{"Standard_D16plds_v5": ExcludedArtifactStreaming},
			[]string{"Standard_D2s_v3"}},
		{"artifact streaming off", func(s *api.AKSNodeClassSpec) { s.ArtifactStreaming = &api.ArtifactStreaming{Enabled: ptr(false)} },
			nil, []string{"Standard_D16plds_v5"}},
		{"local DNS required", func(s *api.AKSNodeClassSpec) { s.LocalDNS = &api.LocalDNS{Mode: api.LocalDNSModeRequired} },
			map[string]ExclusionKind{"Standard_D2s_v3": ExcludedLocalDNS, "Standard_D2_v2": ExcludedLocalDNS,
				"Standard_D2_v3": ExcludedLocalDNS, "Standard_D2_v5": ExcludedLocalDNS, "Standard_D2as_v6": ExcludedLocalDNS,
				"Standard_DS2_v2": ExcludedLocalDNS},
			[]string{"Standard_D4s_v3"}},
		{"local DNS preferred", func(s *api.AKSNodeClassSpec) { s.LocalDNS = &api.LocalDNS{Mode: api.LocalDNSModePreferred} },
			nil, []string{"Standard_D2s_v3"}},
		// upstream: pkg/providers/instancetype/instancetypes.go (isInstanceTypeSupportedByLocalDNS reads
		// the resolved status, not the spec's mode)
		{"local DNS preferred resolved", func(s *api.AKSNodeClassSpec) { s.LocalDNS = &api.LocalDNS{Mode: api.LocalDNSModePreferred} },
			map[string]ExclusionKind{"Standard_D2s_v3": ExcludedLocalDNS, "Standard_D2_v2": ExcludedLocalDNS,
				"Standard_D2_v3": ExcludedLocalDNS, "Standard_D2_v5": ExcludedLocalDNS, "Standard_D2as_v6": ExcludedLocalDNS,
				"Standard_DS2_v2": ExcludedLocalDNS},
			[]string{"Standard_D4s_v3"}},
	}
	skus := append(fixture(t, "southcentralus"), gpuExtras()...)
	for _, sku := range skus[len(skus)-3:] {
		sku.Locations[0], sku.LocationInfo[0].Location = ptr("southcentralus"), ptr("southcentralus")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := defaultOptions(t, "southcentralus")
			opts.NodeClass = nodeClass(tc.spec)
			if strings.HasSuffix(tc.name, "resolved") {
				opts.NodeClass.Status.LocalDNSState = api.LocalDNSStateEnabled
			}
			cat := build(t, skus, opts)
			got := exclusions(cat)
			for name, kind := range tc.excluded {
				assert.Equal(t, kind, got[name], name)
			}
			for name, kind := range got {
				if _, ok := tc.excluded[name]; !ok {
					assert.Contains(t, []ExclusionKind{ExcludedAKSRestricted, ExcludedConfidential, ExcludedConstrainedCPU,
						ExcludedGPUDriver, ExcludedGPUImageFamily, ExcludedUnsupportedGPU}, kind, "%s excluded unexpectedly", name)
				}
			}
			for _, name := range tc.included {
				mustFind(t, cat, name)
			}
		})
	}
}

func TestAMDGPUWithGPUModeNone(t *testing.T) {
	opts := defaultOptions(t, "eastus")
	opts.NodeClass = nodeClass(func(s *api.AKSNodeClassSpec) { s.GPU = &api.GPU{Mode: ptr(api.GPUModeNone)} })
	cat := build(t, gpuExtras(), opts)
	it := mustFind(t, cat, "Standard_NV4ads_V710_v5")
	assert.Equal(t, int64(1), it.Capacity.Name(ResourceAMDGPU, "").Value())
	_, nvidia := it.Capacity[ResourceNVIDIAGPU]
	assert.False(t, nvidia)
	labels := it.Requirements.Labels()
	assert.Equal(t, "amd", labels[api.LabelSKUGPUManufacturer])
	assert.Equal(t, "V710", labels[api.LabelSKUGPUName])
	assert.Equal(t, "1", labels[api.LabelSKUGPUCount])
	assert.Equal(t, corev1.NodeSelectorOpIn, it.Requirements.Get(api.LabelSKUGPUName).Operator())
}

func TestNodeClassOptionErrors(t *testing.T) {
	tests := []struct {
		name, want string
		spec       func(*api.AKSNodeClassSpec)
	}{
		{"windows", `bad options: NodeClass.spec.imageFamily: must be Ubuntu, Ubuntu2204, Ubuntu2404 or AzureLinux (the catalogue describes Linux nodes), got "Windows2022"`,
			func(s *api.AKSNodeClassSpec) { s.ImageFamily = ptr(api.ImageFamilyWindows2022) }},
		{"unknown family", `got "Debian"`, func(s *api.AKSNodeClassSpec) { s.ImageFamily = ptr("Debian") }},
		{"small disk", "bad options: NodeClass.spec.osDiskSizeGB: must be between 30 and 2048, got 29",
			func(s *api.AKSNodeClassSpec) { s.OSDiskSizeGB = ptr(int32(29)) }},
		{"huge disk", "got 4096", func(s *api.AKSNodeClassSpec) { s.OSDiskSizeGB = ptr(int32(4096)) }},
		{"zero max pods", "bad options: NodeClass.spec.maxPods: must be at least 1, got 0",
			func(s *api.AKSNodeClassSpec) { s.MaxPods = ptr(int32(0)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := defaultOptions(t, "eastus")
			opts.NodeClass = nodeClass(tc.spec)
			_, err := Build(nil, opts)
			require.ErrorIs(t, err, ErrBadOptions)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
