package app

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/napkit/napkit/consolidation"
)

// TestConsolidationOptions: the consolidation flags reach consolidation.Options, and their
// defaults are napkit's replace saving with Karpenter's command shapes (M -> 0 or 1).
func TestConsolidationOptions(t *testing.T) {
	tests := []struct {
		name  string
		extra []string
		want  consolidation.Options
	}{
		{"defaults", nil, consolidation.Options{MinReplaceSavings: 0.1}},
		{"many to many", []string{"--consolidation-allow-many-to-many"}, consolidation.Options{MinReplaceSavings: 0.1, AllowManyToMany: true}},
		{"Karpenter's saving rule", []string{"--consolidation-min-replace-savings=0"}, consolidation.Options{}},
		{"both", []string{"--consolidation-allow-many-to-many=true", "--consolidation-min-replace-savings=0.25"},
			consolidation.Options{MinReplaceSavings: 0.25, AllowManyToMany: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, realFlags(t, t.TempDir(), tt.extra...).consolidationOptions())
		})
	}
}
