package controller

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestWriteFromCache counts the requests of one write: a current cached copy costs one put, a
// conflict one read and one more put, a copy with nothing to change one read (it may be stale).
func TestWriteFromCache(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, "n", errors.New("stale"))
	tests := []struct {
		name              string
		cached            *int // the cached value; nil: not in the cache
		fresh             int  // the value a read returns
		conflicts         int  // puts refused with a conflict before one succeeds
		wantReads         int
		wantPuts          int
		wantPut           []int
		wantErrIsConflict bool
	}{
		{name: "cached copy written directly", cached: ptr(1), fresh: 1, wantPuts: 1, wantPut: []int{2}},
		{name: "not cached: read then write", fresh: 1, wantReads: 1, wantPuts: 1, wantPut: []int{2}},
		{name: "conflict: read fresh, write again", cached: ptr(1), fresh: 5, conflicts: 1, wantReads: 1, wantPuts: 2, wantPut: []int{2, 6}},
		{name: "no change on the copy: ask a fresh read", cached: ptr(10), fresh: 1, wantReads: 1, wantPuts: 1, wantPut: []int{2}},
		{name: "no change at all: no write", cached: ptr(10), fresh: 10, wantReads: 1},
		{name: "conflicts every time: give up", cached: ptr(1), fresh: 1, conflicts: 100, wantReads: maxWriteAttempts - 1,
			wantPuts: maxWriteAttempts, wantPut: []int{2, 2, 2, 2, 2}, wantErrIsConflict: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reads, conflicts := 0, tt.conflicts
			var puts []int
			read := func() (*int, error) { reads++; return ptr(tt.fresh), nil }
			mutate := func(v *int) bool { // "increment unless already >= 10"
				if *v >= 10 {
					return false
				}
				*v++
				return true
			}
			put := func(v *int) error {
				puts = append(puts, *v)
				if conflicts > 0 {
					conflicts--
					return conflict
				}
				return nil
			}
			var cached *int
			if tt.cached != nil {
				cached = ptr(*tt.cached)
			}
			err := writeFromCache(cached, read, mutate, put)
			assert.Equal(t, tt.wantErrIsConflict, apierrors.IsConflict(err), "error %v", err)
			if !tt.wantErrIsConflict {
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.wantReads, reads, "reads")
			assert.Len(t, puts, tt.wantPuts, "puts")
			assert.Equal(t, tt.wantPut, puts)
		})
	}
}
