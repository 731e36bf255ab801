package instancetype

import (
	"errors"
	"strings"
	"testing"

	"github.com/napkit/napkit/api"
)

// FuzzReadSKUs feeds random and mutated ARM JSON through ReadSKUs and Build: nothing may
// panic, every error must wrap the package's sentinels, and SKU errors must name the SKU and field.
func FuzzReadSKUs(f *testing.F) {
	for _, region := range []string{"eastus", "southcentralus", "westcentralus"} {
		data, err := fixtureBytes(region)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"name":"Standard_X","capabilities":[{"name":"MemoryGB","value":"abc"},{"name":"vCPUs","value":"2"}]}]`))
	f.Add([]byte(`{"value":[{"name":"Standard_D2s_v3","locationInfo":[null,{"location":"eastus","zones":[null,"1"],"zoneDetails":[{}]}],"restrictions":[{"type":"Zone","restrictionInfo":null}]}]}`))
	f.Add([]byte(`[{"name":"Standard_D4s_v5","size":"D4s_v5","resourceType":"virtualMachines","locations":["eastus"],` +
		`"locationInfo":[{"location":"eastus","zones":["1","2"]}],"capabilities":[{"name":"vCPUs","value":"4"},` +
		`{"name":"MemoryGB","value":"16"},{"name":"LowPriorityCapable","value":"True"},{"name":"GPUs","value":"1"},` +
		`{"name":"EphemeralOSDiskSupported","value":"True"},{"name":"CachedDiskBytes","value":"107374182400"}]}]`))
	f.Add([]byte(`[null]`))
	f.Add([]byte(`{"value":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		skus, err := parseARMSKUs(data)
		if err != nil {
			if !errors.Is(err, ErrBadSKUList) {
				t.Fatalf("error does not wrap ErrBadSKUList: %v", err)
			}
			return
		}
		for _, raw := range skus {
			sku, err := readARMSKU(raw, "eastus")
			if err != nil {
				var skuErr *api.FieldError
				if !errors.As(err, &skuErr) || !errors.Is(err, ErrBadSKU) {
					t.Fatalf("readARMSKU error is not an *api.FieldError of class ErrBadSKU: %v", err)
				}
				if skuErr.Object == "" || skuErr.Field == "" || !strings.Contains(err.Error(), skuErr.Field) {
					t.Fatalf("error does not name the SKU and field: %v", err)
				}
				if !strings.Contains(err.Error(), skuErr.ValueString()) {
					t.Fatalf("error does not quote the value: %v", err)
				}
				continue
			}
			FindMaxEphemeral(sku)
			ChooseOSDisk(sku, 128)
		}
		cat, err := readARMSKUs(skus, "eastus").Build(Options{Region: "eastus", Network: api.DefaultClusterNetwork()})
		if err != nil {
			t.Fatalf("Build failed on valid options: %v", err)
		}
		if len(cat.InstanceTypes)+len(cat.Excluded) != len(skus) {
			t.Fatalf("%d SKUs in, %d types + %d excluded out", len(skus), len(cat.InstanceTypes), len(cat.Excluded))
		}
		for _, it := range cat.InstanceTypes {
			for name, c := range it.Capacity {
				a := it.Allocatable()[name]
				if a.Cmp(c) > 0 || a.Sign() < 0 {
					t.Fatalf("%s %s: allocatable %s, capacity %s", it.Name, name, a.String(), c.String())
				}
			}
		}
	})
}

// FuzzParseSize checks that ParseSize never panics, that what parses prints back unchanged, and that
// errors wrap ErrBadSize and quote the name.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"D2s_v3", "NC24ads_A100_v4", "M8-2ms", "M128-64bds_3_v3", "ND128isr_NDR_GB200_v6",
		"NC144ds_xl_RTXPRO6000BSE_v6", "D2_v2_Promo", "A0", "", "D2s__v3", "ABCD", "D999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, size string) {
		v, err := ParseSize(size)
		if err != nil {
			var sizeErr *api.FieldError
			if !errors.As(err, &sizeErr) || !errors.Is(err, ErrBadSize) || sizeErr.Value != size || sizeErr.Reason == "" {
				t.Fatalf("bad error for %q: %v", size, err)
			}
			return
		}
		if got := v.String(); got != size {
			t.Fatalf("%q parsed and printed as %q", size, got)
		}
		if v.Family == "" || v.Series() == "" || v.VersionLabel() == "" {
			t.Fatalf("%q: empty label part in %+v", size, v)
		}
		if again, err := ParseSize(v.String()); err != nil || again != v {
			t.Fatalf("%q: reparse gave %+v, %v", size, again, err)
		}
	})
}
