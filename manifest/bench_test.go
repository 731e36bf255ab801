package manifest

import (
	"bytes"
	"os"
	"testing"
)

func BenchmarkDecodeSeed(b *testing.B) {
	seed, err := os.ReadFile(seedFile)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(seed)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(bytes.NewReader(seed), seedFile); err != nil {
			b.Fatal(err)
		}
	}
}
