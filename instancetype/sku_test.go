package instancetype

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
)

func TestParseSKUsShapes(t *testing.T) {
	const entry = `{"name":"Standard_D2s_v3","size":"D2s_v3","capabilities":[{"name":"vCPUs","value":"2"}]}`
	tests := []struct {
		name, data string
		want       int
		wantErr    string
	}{
		{"ARM list", `{"value":[` + entry + `],"nextLink":""}`, 1, ""},
		{"bare array", `[` + entry + `,` + entry + `]`, 2, ""},
		{"empty list", `{"value":[]}`, 0, ""},
		{"leading space", " \n[" + entry + "]", 1, ""},
		{"empty input", ``, 0, "empty input"},
		{"no value key", `{"items":[]}`, 0, `no "value" array`},
		{"null value", `{"value":null}`, 0, `no "value" array`},
		{"scalar", `42`, 0, `got "42"`},
		{"null entry", `[null]`, 0, "entry 0: null"},
		{"wrong type names the field", `[{"name":7}]`, 0, "entry 0: json: cannot unmarshal number into Go struct field armSKU.name of type string"},
		{"bad capability value type", `[` + entry + `,{"capabilities":[{"name":"vCPUs","value":2}]}]`, 0, "entry 1: json: cannot unmarshal number into Go struct field armCapability.capabilities.value of type string"},
		{"truncated", `{"value":[` + entry, 0, "unexpected end of JSON input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			skus, err := parseARMSKUs([]byte(tc.data))
			if tc.wantErr != "" {
				require.ErrorIs(t, err, ErrBadSKUList)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Len(t, skus, tc.want)
			for _, s := range skus {
				assert.Equal(t, "Standard_D2s_v3", deref(s.Name))
			}
		})
	}
}

func TestParseSKUsKeepsEveryField(t *testing.T) {
	raw := fixtureRecord(t, "eastus", "Standard_M8-2ms")
	assert.Equal(t, "standardMSFamily", deref(raw.Family))
	assert.Equal(t, "Standard", deref(raw.Tier))
	require.Len(t, raw.Restrictions, 1)
	r := raw.Restrictions[0]
	assert.Equal(t, restrictionZone, *r.Type)
	assert.Equal(t, "NotAvailableForSubscription", *r.ReasonCode)
	assert.Equal(t, []*string{ptr("1")}, r.RestrictionInfo.Zones)
	assert.Equal(t, []*string{ptr("eastus")}, r.Values)
}

func TestNewSKUFromFixture(t *testing.T) {
	sku := fixtureSKU(t, "southcentralus", "Standard_NC24ads_A100_v4")
	assert.Equal(t, &SKU{
		Name: "Standard_NC24ads_A100_v4", Size: "NC24ads_A100_v4", ResourceType: "virtualMachines",
		Family: "StandardNCADSA100v4Family", VCPUs: 24, VCPUsAvailable: 24, MemoryGiB: 220, GPUs: 1,
		Arch: "amd64", HyperVGenerations: sets.New("2"),
		LowPriorityCapable: true, PremiumIO: true, AcceleratedNetworking: true, EncryptionAtHostSupported: true,
		EphemeralOSDiskSupported: true, DiskCapabilitiesKnown: true,
		SupportedEphemeralOSDiskPlacements: []string{"ResourceDisk", "CacheDisk"},
		CachedDiskBytes:                    274877906944, MaxResourceVolumeMB: 65536, NvmeDiskSizeInMiB: 915527,
		UltraSSDAvailable: true, Zones: []string{"1", "3"}, OfferedInRegion: true,
	}, sku)

	arm := fixtureSKU(t, "southcentralus", "Standard_D16plds_v5")
	assert.Equal(t, "arm64", arm.Arch)
	assert.True(t, arm.TrustedLaunchDisabled)

	gen1 := fixtureSKU(t, "southcentralus", "Standard_D2_v2")
	assert.Equal(t, sets.New("1"), gen1.HyperVGenerations)
	assert.False(t, gen1.EphemeralOSDiskSupported)

	constrained := fixtureSKU(t, "southcentralus", "Standard_M8-2ms")
	assert.Equal(t, int64(8), constrained.VCPUs)
	assert.Equal(t, int64(2), constrained.VCPUsAvailable)
	assert.Equal(t, 218.75, constrained.MemoryGiB)
}

func TestNewSKUZones(t *testing.T) {
	tests := []struct {
		region, name string
		zones        []string
		restricted   bool
	}{
		// eastus records zone restrictions for the generating subscription.
		{"eastus", "Standard_NC6s_v3", []string{}, false},        // zones 1-3 all restricted ⇒ regional only
		{"eastus", "Standard_A0", []string{}, false},             // no zones listed, restriction harmless
		{"eastus", "Standard_M8-2ms", []string{"2", "3"}, false}, // zone 1 restricted
		{"eastus", "Standard_D2s_v3", []string{"1", "2", "3"}, false},
		{"eastus", "Standard_NC24ads_A100_v4", []string{"3"}, false},
		{"southcentralus", "Standard_D2as_v6", []string{"2", "3"}, false},
		{"southcentralus", "Standard_NC6s_v3", []string{}, false},
		{"westcentralus", "Standard_D2s_v3", []string{}, false}, // a region without zones
		{"westcentralus", "Standard_A0", []string{}, true},      // Location restriction
	}
	for _, tc := range tests {
		t.Run(tc.region+"/"+tc.name, func(t *testing.T) {
			sku := fixtureSKU(t, tc.region, tc.name)
			assert.Equal(t, tc.zones, sku.Zones)
			assert.Equal(t, tc.restricted, sku.LocationRestricted)
			assert.True(t, sku.OfferedInRegion)
		})
	}
	other, err := readARMSKU(fixtureRecord(t, "eastus", "Standard_D2s_v3"), "westus2")
	require.NoError(t, err)
	assert.False(t, other.OfferedInRegion)
	assert.Empty(t, other.Zones)
}

func TestNewSKUZoneDetails(t *testing.T) {
	raw := syntheticSKU("Standard_D4s_v5", "4", "16")
	raw.LocationInfo[0].ZoneDetails = []*armZoneDetails{
		nil,
		{Name: []*string{ptr("1"), nil, ptr("2")}, Capabilities: []*armCapability{
			nil, {Name: ptr("UltraSSDAvailable"), Value: ptr("True")},
		}},
		{Name: []*string{ptr("3")}, Capabilities: []*armCapability{
			{Name: ptr("UltraSSDAvailable"), Value: ptr("False")},
		}},
	}
	raw.Restrictions = []*armRestriction{{
		Type:            ptr(restrictionZone),
		RestrictionInfo: &armRestrictionInfo{Locations: []*string{ptr("EastUS")}, Zones: []*string{ptr("2")}},
	}}
	sku, err := readARMSKU(raw, "eastus")
	require.NoError(t, err)
	assert.Equal(t, []string{"1", "3"}, sku.Zones)
	assert.Equal(t, []string{"1"}, sku.UltraSSDZones)
	assert.False(t, sku.UltraSSDAvailable)
}

func TestNewSKUErrors(t *testing.T) {
	withCap := func(name, value string) *armSKU {
		return syntheticSKU("Standard_X", "2", "8", name, value)
	}
	tests := []struct {
		name string
		raw  *armSKU
		want string
	}{
		{"nil record", nil, "(unnamed SKU): record: missing"},
		{"no name", &armSKU{}, "(unnamed SKU): name: missing"},
		{"bad memory", withCap("MemoryGB", "abc"), `Standard_X: capability MemoryGB: want a number, got "abc"`},
		{"NaN memory", withCap("MemoryGB", "NaN"), `Standard_X: capability MemoryGB: want a number, got "NaN"`},
		{"negative memory", withCap("MemoryGB", "-1"), `Standard_X: capability MemoryGB: want a number, got "-1"`},
		{"bad vCPUs", withCap("vCPUs", "two"), `Standard_X: capability vCPUs: want an integer from 0 to 1048576, got "two"`},
		{"huge vCPUs", withCap("vCPUs", "99999999999999999999"), `capability vCPUs: want an integer from 0 to 1048576, got "99999999999999999999"`},
		{"fractional GPUs", withCap("GPUs", "1.5"), `Standard_X: capability GPUs: want an integer`},
		{"bad bool", withCap("PremiumIO", "yes"), `Standard_X: capability PremiumIO: want True or False, got "yes"`},
		{"bad arch", withCap("CpuArchitectureType", "riscv"), `Standard_X: capability CpuArchitectureType: want x64 or Arm64, got "riscv"`},
		{"bad generation", withCap("HyperVGenerations", "V1,V3"), `Standard_X: capability HyperVGenerations: want a list of V1 and V2, got "V1,V3"`},
		{"empty generation", withCap("HyperVGenerations", " , "), `want a list of V1 and V2, got " , "`},
		{"no vCPUs", &armSKU{Name: ptr("Standard_Y")}, "Standard_Y: capability vCPUs: missing"},
		{"no memory", &armSKU{Name: ptr("Standard_Y"), Capabilities: []*armCapability{
			{Name: ptr("vCPUs"), Value: ptr("2")},
		}}, "Standard_Y: capability MemoryGB: missing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readARMSKU(tc.raw, "eastus")
			require.ErrorIs(t, err, ErrBadSKU)
			var skuErr *api.FieldError
			require.True(t, errors.As(err, &skuErr))
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestNewSKUNilPointersEverywhere(t *testing.T) {
	raw := &armSKU{
		Name:         ptr("Standard_D2s_v3"),
		Capabilities: []*armCapability{nil, {}, {Name: ptr("vCPUs")}, {Value: ptr("2")}, {Name: ptr("vCPUs"), Value: ptr("2")}, {Name: ptr("MemoryGB"), Value: ptr("8")}},
		LocationInfo: []*armLocationInfo{nil, {}, {Location: ptr("eastus"), Zones: []*string{nil, ptr("")},
			ZoneDetails: []*armZoneDetails{nil, {}}}},
		Locations:    []*string{nil},
		Restrictions: []*armRestriction{nil, {}, {Type: ptr(restrictionZone)}, {Type: ptr(restrictionZone), Values: []*string{nil, ptr("eastus")}}},
	}
	sku, err := readARMSKU(raw, "eastus")
	require.NoError(t, err)
	assert.Equal(t, "D2s_v3", sku.Size, "size taken from the name")
	assert.Equal(t, int64(2), sku.VCPUsAvailable, "defaults to vCPUs")
	assert.Equal(t, sets.New("1"), sku.HyperVGenerations)
	assert.Equal(t, "amd64", sku.Arch)
	assert.Empty(t, sku.Zones)
}
