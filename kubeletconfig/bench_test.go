package kubeletconfig

import "testing"

// BenchmarkReserve is the catalogue's per-SKU cost: it runs once per instance type and policy.
func BenchmarkReserve(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Reserve(d2sv3); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFlags renders the fullest golden config, the bootstrap path's per-node cost.
func BenchmarkFlags(b *testing.B) {
	c := goldenConfigs(b)["d2sv3-overlay-kubelet"]
	b.ReportAllocs()
	for b.Loop() {
		if len(c.Flags()) == 0 {
			b.Fatal("no flags")
		}
	}
}
