package requirements

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnion(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
		want []string
	}{
		{"both empty", nil, nil, nil},
		{"one empty", []string{"a"}, nil, []string{"a"}},
		{"subset", []string{"a", "b", "c"}, []string{"b"}, []string{"a", "b", "c"}},
		{"superset", []string{"b"}, []string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{"interleaved with overlap", []string{"a", "c", "e"}, []string{"b", "c", "d", "f"}, []string{"a", "b", "c", "d", "e", "f"}},
		{"disjoint, tail on the left", []string{"x", "z"}, []string{"a"}, []string{"a", "x", "z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, union(tt.a, tt.b))
			assert.Equal(t, tt.want, union(tt.b, tt.a))
		})
	}
}

func TestFilter(t *testing.T) {
	all := []string{"a", "b", "c"}
	kept := filter(all, func(string) bool { return true })
	assert.Equal(t, all, kept)
	assert.Same(t, &all[0], &kept[0], "nothing removed: no copy")
	assert.Equal(t, []string{"a", "c"}, filter(all, func(v string) bool { return v != "b" }))
	assert.Nil(t, filter(all, func(string) bool { return false }))
	assert.Equal(t, []string{"a", "b", "c"}, all, "input untouched")
}

func TestContains(t *testing.T) {
	long := sortedSet([]string{"j", "i", "h", "g", "f", "e", "d", "c", "b", "a"})
	for _, v := range long {
		assert.True(t, contains(long, v))
	}
	assert.False(t, contains(long, "z"))
	assert.False(t, contains(nil, ""))
}
