package instancetype

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/internal/azuredata"
)

// TestParseARMSKUsAtOnce: the one-pass decode gives the records of the entry-by-entry one for every
// embedded list and for both list forms, and leaves to it every list it would word an error for.
func TestParseARMSKUsAtOnce(t *testing.T) {
	var lists [][]byte
	for _, region := range azuredata.CatalogRegions() {
		data, err := azuredata.Catalog(region)
		require.NoError(t, err)
		lists = append(lists, data)
	}
	for _, region := range azuredata.FixtureRegions() {
		data, err := azuredata.Fixture(region)
		require.NoError(t, err)
		lists = append(lists, data)
	}
	lists = append(lists, []byte(`[{"name":"Standard_A1","capabilities":[{"name":"vCPUs","value":"1"}]}]`),
		[]byte(` {"value":[],"nextLink":"x"} `))
	for _, data := range lists {
		want, err := parseARMSKUsByEntry(data)
		require.NoError(t, err)
		got, ok := parseARMSKUsAtOnce(data)
		require.True(t, ok)
		assert.Equal(t, want, got)
	}
	for _, bad := range []string{`[null]`, `[{"name":7}]`, `{"values":[]}`, `{"value":null}`, `"x"`, ``, `[{}] x`} {
		_, ok := parseARMSKUsAtOnce([]byte(bad))
		assert.False(t, ok, bad)
	}
}
