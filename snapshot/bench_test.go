package snapshot_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/napkit/napkit/manifest"
	"github.com/napkit/napkit/snapshot"
)

// BenchmarkRead reads 10,000 decoded Pods, handed over as `napkit plan` hands them (Owned), and
// takes their snapshot: the step between decoding the manifests and solving.
func BenchmarkRead(b *testing.B) {
	var sb strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&sb, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p-%d\n  namespace: default\nspec:\n"+
			"  containers:\n  - name: c\n    image: nginx\n    resources:\n      requests:\n        cpu: %dm\n", i, 100+i%5*250)
	}
	set, err := (&manifest.Decoder{ShareTemplates: true}).Decode(strings.NewReader(sb.String()), "pods.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		// Owned: the pods have namespaces, so Read changes none and the set can be read again.
		objs, err := snapshot.Read(set, nil, snapshot.ReadOptions{Owned: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := snapshot.Take(objs, snapshot.Options{Now: time.Unix(0, 0), Strict: true}); err != nil {
			b.Fatal(err)
		}
	}
}
