package instancetype_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

func TestBuildDefault(t *testing.T) {
	cat, err := instancetype.BuildDefault("eastus", api.DefaultClusterNetwork())
	require.NoError(t, err)
	assert.Greater(t, len(cat.InstanceTypes), 800, "the embedded eastus catalogue")
	it, ok := cat.Find("Standard_D2s_v5")
	require.True(t, ok)
	require.NotEmpty(t, it.Offerings)
	for _, o := range it.Offerings {
		assert.Positive(t, o.Price, "every offering priced from the embedded snapshot: %+v", o)
	}

	_, err = instancetype.BuildDefault("atlantis", api.DefaultClusterNetwork())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "atlantis")
}
