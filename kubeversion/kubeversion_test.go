package kubeversion_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/version"

	"github.com/napkit/napkit/kubeversion"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]string{
		"1.33.2": "1.33.2", "v1.33.2": "1.33.2", "v1.33.2-aks.1": "1.33.2", "v1.34.0+k3s1": "1.34.0", " v1.30.10 ": "1.30.10",
	} {
		got, err := kubeversion.Parse("f", in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "1.33", "latest", "v1", "1.x.2"} {
		_, err := kubeversion.Parse("spec.version", bad)
		require.ErrorIs(t, err, kubeversion.ErrInvalid, bad)
		assert.Contains(t, err.Error(), "spec.version")
	}
}

func TestFromServer(t *testing.T) {
	got, err := kubeversion.FromServer(&version.Info{GitVersion: "v1.33.4", Major: "1", Minor: "33"})
	require.NoError(t, err)
	assert.Equal(t, "1.33.4", got)
	_, err = kubeversion.FromServer(nil)
	require.ErrorIs(t, err, kubeversion.ErrInvalid)
	_, err = kubeversion.FromServer(&version.Info{})
	require.ErrorIs(t, err, kubeversion.ErrInvalid)
}

// upstream: pkg/controllers/nodeclass/status/kubernetesversion.go (init, upgrade, no downgrade).
func TestNext(t *testing.T) {
	for _, tc := range []struct {
		current, discovered, want string
		upgraded                  bool
	}{
		{"", "1.33.2", "1.33.2", false},
		{"1.33.2", "1.33.2", "1.33.2", false},
		{"1.33.2", "1.33.3", "1.33.3", true},
		{"1.33.2", "1.34.0", "1.34.0", true},
		{"1.34.0", "1.33.9", "1.34.0", false},
		{"garbage", "1.33.2", "1.33.2", false},
	} {
		got, up, err := kubeversion.Next(tc.current, tc.discovered)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%+v", tc)
		assert.Equal(t, tc.upgraded, up, "%+v", tc)
	}
	_, _, err := kubeversion.Next("1.33.2", "nope")
	require.ErrorIs(t, err, kubeversion.ErrInvalid)
}

func TestForNodes(t *testing.T) {
	got, err := kubeversion.ForNodes("1.33.2", "")
	require.NoError(t, err)
	assert.Equal(t, "1.33.2", got)
	got, err = kubeversion.ForNodes("1.33.2", "v1.32.5")
	require.NoError(t, err)
	assert.Equal(t, "1.32.5", got)
	_, err = kubeversion.ForNodes("1.33.2", "1.33.3")
	require.ErrorIs(t, err, kubeversion.ErrNewerThanControlPlane)
	assert.Contains(t, err.Error(), "1.33.3")
	_, err = kubeversion.ForNodes("1.33.2", "1.29.0")
	require.ErrorIs(t, err, kubeversion.ErrTooOld)
	_, err = kubeversion.ForNodes("1.33.2", "1.30.0")
	require.NoError(t, err, "three minors behind is within the skew policy")
	_, err = kubeversion.ForNodes("bad", "")
	require.ErrorIs(t, err, kubeversion.ErrInvalid)
}

func ExampleNext() {
	next, upgraded, _ := kubeversion.Next("1.33.2", "1.34.1")
	fmt.Println(next, upgraded)
	// Output: 1.34.1 true
}
