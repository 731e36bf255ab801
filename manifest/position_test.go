package manifest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPositionArena: positions rendered into the walk's arena read as the ones rendered alone, and
// stay intact while later ones fill more blocks (a block is never written again).
func TestPositionArena(t *testing.T) {
	tests := []struct {
		name              string
		source            string
		index, line, item int
		want              string
	}{
		{"document", "seed.yaml", 3, 58, 0, "seed.yaml document 3 (line 58)"},
		{"list item", "list.yaml", 1, 1, 12, "list.yaml document 1 (line 1) item 12"},
		{"largest numbers", "a", 1<<63 - 1, 1<<63 - 1, 1<<63 - 1,
			"a document 9223372036854775807 (line 9223372036854775807) item 9223372036854775807"},
		{"a source longer than a block", string(make([]byte, positionBlock+1)), 1, 1, 0,
			string(make([]byte, positionBlock+1)) + " document 1 (line 1)"},
	}
	var arena positionArena
	var got []string
	for range 3 * positionBlock / 32 { // enough to fill several blocks
		for _, tt := range tests {
			got = append(got, arena.position(tt.source, tt.index, tt.line, tt.item))
		}
	}
	for i, s := range got {
		tt := tests[i%len(tests)]
		assert.Equal(t, tt.want, s, tt.name)
		assert.Equal(t, tt.want, position(tt.source, tt.index, tt.line, tt.item), tt.name)
	}
}

// TestPositionArenaOnlyDuringWalk: a document handed to a DecodeFunc renders its position alone
// once the walk is past it, so a DecodeFunc that keeps it never shares the walk's arena.
func TestPositionArenaOnlyDuringWalk(t *testing.T) {
	var kept []*Document
	kinds := DefaultKinds()
	kinds[Kind{"v1", "ConfigMap"}] = func(doc *Document, set *Set) error {
		assert.NotNil(t, doc.positions, "during the walk")
		kept = append(kept, doc)
		return nil
	}
	_, err := NewDecoder(kinds).Decode(strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"), "cm.yaml")
	assert.NoError(t, err)
	if assert.Len(t, kept, 1) {
		assert.Nil(t, kept[0].positions)
		assert.Equal(t, "cm.yaml document 1 (line 1)", kept[0].Position())
	}
}

// BenchmarkPositions renders the positions of 10,000 documents, one by one and into an arena.
func BenchmarkPositions(b *testing.B) {
	b.Run("alone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range 10000 {
				_ = position("pods.yaml", i+1, 14*i+1, 0)
			}
		}
	})
	b.Run("arena", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var arena positionArena
			for i := range 10000 {
				_ = arena.position("pods.yaml", i+1, 14*i+1, 0)
			}
		}
	})
}
