package bootstrap

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
)

// A secret never reaches an error's text, whichever way it could get there: the token check leaves
// the value out, and a Secret put in the one error type (as Value, or formatted into the reason)
// prints as <redacted>.
func TestSecretsStayOutOfErrors(t *testing.T) {
	const token = "abcdef.0123456789abcdeX" // one character off the pattern: rejected
	secret := NewSecret(token)
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"token check", validateToken("bootstrap token", secret), "invalid bootstrap input: bootstrap token: must be a bootstrap token"},
		{"secret as value", invalid("bootstrap token", secret, "rejected"), `bootstrap token: rejected, got "<redacted>"`},
		{"secret in the reason", invalid("customData", nil, "cannot hold %v (%q, %x)", secret, secret, secret),
			"customData: cannot hold <redacted> (<redacted>, <redacted>)"},
		{"secrets in a list value", invalid("tokens", []Secret{secret}, "rejected"), `tokens: rejected, got ["<redacted>"]`},
		{"wrapped", fmt.Errorf("settings: %w", invalid("bootstrap token", &secret, "rejected")), `got "<redacted>"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Error(t, tc.err)
			assert.Contains(t, tc.err.Error(), tc.want)
			assert.NotContains(t, tc.err.Error(), "0123456789abcde")
			var fe *api.FieldError
			require.True(t, errors.As(tc.err, &fe))
			assert.NotContains(t, fe.ValueString(), "0123456789abcde")
			assert.ErrorIs(t, tc.err, ErrInvalid)
		})
	}
}
