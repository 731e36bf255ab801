package launch

import "log/slog"

const redacted = "[redacted]"

// Secret is a string that never formats, logs or marshals its value, so a
// bootstrap token cannot leak through %v, slog or encoding/json by accident.
// Convert it with string(s) where the value must be sent.
type Secret string

// String returns a placeholder, or "" for an empty secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString returns the same placeholder as String.
func (s Secret) GoString() string { return `"` + s.String() + `"` }

// LogValue keeps the value out of slog output.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalText keeps the value out of encoding/json and friends.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
