package api

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// fromYAML reads a test object; the YAML is part of the test, so a failure is a broken test.
func fromYAML[T any](t testing.TB, y string) *T {
	t.Helper()
	var v T
	require.NoError(t, yaml.UnmarshalStrict([]byte(y), &v))
	return &v
}

// assertInvalid checks err wraps ErrInvalid, carries *FieldError entries and mentions want
// (a field path and value fragment). An empty want asserts no error.
func assertInvalid(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		assert.NoError(t, err)
		return
	}
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrInvalid)
	var fe *FieldError
	assert.True(t, errors.As(err, &fe), "errors.As should find a *FieldError")
	assert.Contains(t, err.Error(), want)
}
