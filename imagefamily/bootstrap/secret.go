package bootstrap

import (
	"fmt"
	"io"
	"log/slog"
	"regexp"
)

// Redacted is what a secret prints as.
const Redacted = "<redacted>"

// Secret holds a credential, such as the TLS bootstrap token or a launch request's customData. It
// prints as <redacted> with every fmt verb (including %#v and %x), as JSON, as text and in log/slog,
// so it is safe to log the structs that carry it; only Reveal returns the value. The zero Secret is
// empty. It is napkit's one redaction type: package launch carries bootstrap data in it too.
type Secret struct {
	value string
}

// NewSecret wraps s.
func NewSecret(s string) Secret { return Secret{value: s} }

// Reveal returns the secret itself. Call it only where the value must leave the process: in the
// rendered payload, or when the user explicitly asked to see secrets.
func (s Secret) Reveal() string { return s.value }

// IsZero reports whether the secret is empty.
func (s Secret) IsZero() bool { return s.value == "" }

// String returns Redacted, or "" for an empty secret so that "not set" stays visible.
func (s Secret) String() string {
	if s.value == "" {
		return ""
	}
	return Redacted
}

// GoString is String; %#v must not reveal the value either.
func (s Secret) GoString() string { return fmt.Sprintf("bootstrap.Secret(%q)", s.String()) }

// Format writes String for every verb, so %x or %q cannot encode the value.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, s.GoString())
		return
	}
	_, _ = io.WriteString(f, s.String())
}

// MarshalJSON writes String as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + s.String() + `"`), nil }

// LogValue keeps the value out of log/slog output, whichever handler formats it.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalText writes String.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// bootstrapTokenPattern is the Kubernetes bootstrap token format: a 6-character ID and a 16-character
// secret of lower-case letters and digits.
var bootstrapTokenPattern = regexp.MustCompile(`^[a-z0-9]{6}\.[a-z0-9]{16}$`)

// validateToken checks the token's shape without ever putting it in the error.
func validateToken(field string, s Secret) error {
	if !bootstrapTokenPattern.MatchString(s.value) {
		return invalid(field, nil, "must be a bootstrap token <6 chars>.<16 chars> of [a-z0-9] (value not shown)")
	}
	return nil
}
