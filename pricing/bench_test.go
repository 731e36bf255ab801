package pricing

import (
	"testing"
)

func BenchmarkDefaultSnapshot(b *testing.B) {
	for b.Loop() {
		if _, err := DefaultSnapshot(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookup prices a mix of present and absent SKUs, as the instance-type catalogue does for
// every offering.
func BenchmarkLookup(b *testing.B) {
	snap, err := DefaultSnapshot()
	if err != nil {
		b.Fatal(err)
	}
	skus := []string{"Standard_D2s_v3", "Standard_D4s_v5", "Standard_D2as_v5", "Standard_NC6s_v3", "Standard_Nope_v9"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		prices, _ := snap.Region("eastus")
		if _, ok := prices.Lookup(skus[i%len(skus)]); !ok && i%len(skus) != len(skus)-1 {
			b.Fatal("price missing")
		}
	}
}

// BenchmarkProviderLookup is BenchmarkLookup through a Provider, which adds a read lock.
func BenchmarkProviderLookup(b *testing.B) {
	p, err := NewProvider(ProviderOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		prices, _ := p.Region("eastus")
		if _, ok := prices.Spot("Standard_D4s_v5"); !ok {
			b.Fatal("price missing")
		}
	}
}
