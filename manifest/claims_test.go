package manifest

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestClaims: an object is a duplicate only of one with the same kind, namespace and name, however
// many objects of that name were claimed before, and the first definition is the one reported, with
// its source.
func TestClaims(t *testing.T) {
	sources := []string{"a.yaml", "b.yaml", "a.yaml", "c.yaml"} // runs and returns, as files of a directory may not
	at := func(line int) place {
		return place{source: sources[line%len(sources)], index: line, line: 3 * line, item: line % 2}
	}
	before := []objectID{
		{"Pod", "default", "web"},
		{"Pod", "other", "web"},
		{"Deployment", "default", "web"},
		{"NodePool", "", "web"},
		{"Pod", "default", "db"},
	}
	tests := []struct {
		name      string
		id        objectID
		wantDup   bool
		wantFirst place
	}{
		{"first claim of each name", objectID{"Pod", "default", "web"}, true, at(1)},
		{"another namespace", objectID{"Pod", "other", "web"}, true, at(2)},
		{"another kind, deep in the chain", objectID{"NodePool", "", "web"}, true, at(4)},
		{"a kind not claimed under that name", objectID{"Service", "default", "web"}, false, place{}},
		{"a namespace not claimed", objectID{"Pod", "kube-system", "db"}, false, place{}},
		{"a new name", objectID{"Pod", "default", "cache"}, false, place{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c claims
			c.grow(2) // less than claimed below: the slice must grow on its own
			for i, id := range before {
				_, dup := c.claim(id, at(i+1))
				assert.False(t, dup, id)
			}
			first, dup := c.claim(tt.id, at(99))
			assert.Equal(t, tt.wantDup, dup)
			assert.Equal(t, tt.wantFirst, first)
			if !tt.wantDup {
				again, dup := c.claim(tt.id, at(100))
				assert.True(t, dup, "claimed now")
				assert.Equal(t, at(99), again)
			}
		})
	}
}

// BenchmarkClaims claims 10,000 Pods of one namespace in a fresh build's claims, as the walk of
// BenchmarkDecodePods does.
func BenchmarkClaims(b *testing.B) {
	ids := make([]objectID, 10000)
	for i := range ids {
		ids[i] = objectID{"Pod", "default", "p-" + strconv.Itoa(i)}
	}
	b.ReportAllocs()
	for b.Loop() {
		var c claims
		c.grow(len(ids))
		for i, id := range ids {
			if _, dup := c.claim(id, place{source: "pods.yaml", index: i + 1, line: 14*i + 1}); dup {
				b.Fatal(id)
			}
		}
	}
}
