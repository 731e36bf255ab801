package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The label tables cannot be changed from outside: WellKnownLabels hands out a copy.
func TestLabelTablesAreReadOnly(t *testing.T) {
	copied := WellKnownLabels()
	copied.Insert("example.com/mine")
	copied.Delete(LabelZone)
	assert.False(t, IsWellKnownLabel("example.com/mine"))
	assert.True(t, IsWellKnownLabel(LabelZone))
	assert.Equal(t, []string{"failure-domain.beta.kubernetes.io/zone"}, AliasesOf(LabelZone))
	assert.Empty(t, AliasesOf("example.com/mine"))
	assert.Equal(t, LabelZone, NormalizeLabelKey("failure-domain.beta.kubernetes.io/zone"))
}
