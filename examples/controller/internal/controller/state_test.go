package controller

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestClaimNames: names continue above both the existing NodeClaims and the names this process
// issued, per pool, and a pool name that ends in a number is not confused with a claim number.
func TestClaimNames(t *testing.T) {
	existing := []string{"general-3", "general-12", "gpu-1", "pool-2-7", "not-a-claim", "general-x"}
	inUse := highestClaimNumbers(existing)
	assert.Equal(t, map[string]int{"general": 12, "gpu": 1, "pool-2": 7}, inUse)
	s := newState()
	tests := []struct{ pool, want string }{
		{"general", "general-13"}, {"general", "general-14"}, {"gpu", "gpu-2"}, {"pool-2", "pool-2-8"}, {"new", "new-1"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, s.claimName(tt.pool, inUse[tt.pool]))
	}
	// A claim deleted since (general-12 gone) does not free its number in this process.
	assert.Equal(t, "general-15", s.claimName("general", 3))
}

// BenchmarkClaimNames names 1,000 claims of a batch against 2,000 existing ones: linear in both
// (the earlier code scanned every existing name for every new one).
func BenchmarkClaimNames(b *testing.B) {
	existing := make([]string, 2000)
	for i := range existing {
		existing[i] = fmt.Sprintf("general-%d", i+1)
	}
	for b.Loop() {
		s := newState()
		inUse := highestClaimNumbers(existing)
		for range 1000 {
			s.claimName("general", inUse["general"])
		}
	}
}
