package bootstrap

import (
	"errors"
	"fmt"

	"github.com/napkit/napkit/api"
)

// Sentinel errors; every error this package returns wraps one of them.
var (
	// ErrInvalid marks input that cannot be rendered safely: a label, taint, flag or cluster setting
	// that is malformed or could change the meaning of the generated script.
	ErrInvalid = api.InvalidClass("invalid bootstrap input")
	// ErrUnsupported marks a well-formed setting this package cannot bootstrap (kubenet, Calico).
	ErrUnsupported = errors.New("unsupported bootstrap setting")
)

// FieldError names the rejected field and says why. Value is the rejected value, or "" when the
// field holds a secret: secrets never appear in errors.
type FieldError struct {
	Field  string
	Value  string
	Reason string
	// Kind is ErrInvalid or ErrUnsupported.
	Kind error
}

// Error renders "kind: field "value": reason", leaving out the value of secret fields.
func (e *FieldError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%v: %s: %s", e.Kind, e.Field, e.Reason)
	}
	return fmt.Sprintf("%v: %s %q: %s", e.Kind, e.Field, e.Value, e.Reason)
}

// Unwrap returns Kind.
func (e *FieldError) Unwrap() error { return e.Kind }

func invalid(field, value, reason string, args ...any) *FieldError {
	return &FieldError{Field: field, Value: value, Reason: fmt.Sprintf(reason, args...), Kind: ErrInvalid}
}

func unsupported(field, value, reason string, args ...any) *FieldError {
	return &FieldError{Field: field, Value: value, Reason: fmt.Sprintf(reason, args...), Kind: ErrUnsupported}
}
