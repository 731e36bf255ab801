package instancetype

import (
	"testing"

	"github.com/napkit/napkit/internal/azuredata"
)

func fixtureBytes(region string) ([]byte, error) { return azuredata.Fixture(region) }

// BenchmarkBuildEastus builds the full eastus catalogue (1,293 SKUs, already read) with offerings
// and prices. Budget: 20 ms on one core.
func BenchmarkBuildEastus(b *testing.B) {
	list := readARMSKUs(catalog(b, "eastus"), "eastus")
	known, err := DefaultKnownSKUs()
	if err != nil {
		b.Fatal(err)
	}
	opts := defaultOptions(b, "eastus")
	opts.KnownSKUs = known
	b.ReportAllocs()
	for b.Loop() {
		cat, err := list.Build(opts)
		if err != nil || len(cat.InstanceTypes) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadSKUs reads the eastus catalogue's JSON into SKUs.
func BenchmarkReadSKUs(b *testing.B) {
	data, err := azuredata.Catalog("eastus")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadSKUs(data, "eastus"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseSize(b *testing.B) {
	sizes := []string{"D2s_v3", "NC24ads_A100_v4", "M128-64bds_3_v3", "E96-24ads_v5", "B2ts_v2", "ND128isr_NDR_GB200_v6"}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range sizes {
			if _, err := ParseSize(s); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkLoadDefault is what a command pays for the embedded eastus SKU list: "compact" is
// LoadDefault (the generated text form), "json" the ARM JSON it is made from (gunzip, parse, disk
// capabilities filled), which LoadDefault read before.
func BenchmarkLoadDefault(b *testing.B) {
	for _, bc := range []struct {
		name string
		load func(string) (*SKUList, error)
	}{{"compact", LoadDefault}, {"json", loadDefaultJSON}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if list, err := bc.load("eastus"); err != nil || len(list.SKUs) == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}
