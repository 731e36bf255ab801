package manifest

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
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

// BenchmarkDecodePods reads 10,000 Pod documents in the block style generators and kubectl print,
// the bulk of a large `napkit plan` input: "copied" gives each pod a deep copy of its template,
// "shared" shares it (Decoder.ShareTemplates, what `napkit plan` uses).
func BenchmarkDecodePods(b *testing.B) {
	var sb strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&sb, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p-%d\n  namespace: default\nspec:\n"+
			"  containers:\n  - name: c\n    image: nginx\n    resources:\n      requests:\n        cpu: %dm\n        memory: %dMi\n",
			i, 100+i%5*250, 128<<(i%4))
	}
	data := []byte(sb.String())
	for _, bc := range []struct {
		name string
		d    *Decoder
	}{{"copied", &Decoder{}}, {"shared", &Decoder{ShareTemplates: true}}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.d.Decode(bytes.NewReader(data), "pods.yaml"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSortObjects sorts the Objects of 10,000 Pods of two namespaces, as a build's finish
// does, from input order (p-0, p-1, ..., not name order).
func BenchmarkSortObjects(b *testing.B) {
	objs := make([]Object, 10000)
	for i := range objs {
		objs[i] = Object{Kind: Kind{"v1", "Pod"}, Namespace: []string{"default", "shop"}[i%2], Name: fmt.Sprintf("p-%d", i)}
	}
	b.ReportAllocs()
	for b.Loop() {
		sortObjects(slices.Clone(objs))
	}
}

// BenchmarkDecodeList reads 10,000 Pods as one v1 List, as `kubectl get pods -o yaml` prints them.
func BenchmarkDecodeList(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for i := range 10000 {
		fmt.Fprintf(&sb, "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p-%d\n    namespace: default\n  spec:\n"+
			"    containers:\n    - name: c\n      image: nginx\n      resources:\n        requests:\n          cpu: %dm\n          memory: %dMi\n",
			i, 100+i%5*250, 128<<(i%4))
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(bytes.NewReader(data), "list.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}
