package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/provisioner"
)

// --compact writes the same plan on one line, with each launch list cut to its first names.
func TestPlanCompact(t *testing.T) {
	var full, compact, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"plan", "-f", "testdata/seed-walkthrough.yaml"}, &full, &stderr), stderr.String())
	require.Equal(t, 0, run([]string{"plan", "--compact", "-f", "testdata/seed-walkthrough.yaml"}, &compact, &stderr), stderr.String())
	assert.Equal(t, 1, bytes.Count(compact.Bytes(), []byte("\n")), "one line")
	assert.Less(t, compact.Len(), full.Len())

	var a, b provisioner.Plan
	require.NoError(t, json.Unmarshal(full.Bytes(), &a))
	require.NoError(t, json.Unmarshal(compact.Bytes(), &b))
	require.Len(t, b.NodeClaims, len(a.NodeClaims))
	for i := range a.NodeClaims {
		opts := a.NodeClaims[i].InstanceTypeOptions
		require.Greater(t, len(opts), compactOptions, "the seed's launch lists are long")
		assert.Equal(t, opts[:compactOptions], b.NodeClaims[i].InstanceTypeOptions)
		a.NodeClaims[i].InstanceTypeOptions = b.NodeClaims[i].InstanceTypeOptions
	}
	a.Stats.SolveMillis, b.Stats.SolveMillis = 0, 0
	assert.Equal(t, a, b, "nothing else differs")
}
