package bootstrap

import (
	"errors"

	"github.com/napkit/napkit/api"
)

// Sentinel errors; every error this package returns is an *api.FieldError of one of these classes.
var (
	// ErrInvalid marks input that cannot be rendered safely: a label, taint, flag or cluster setting
	// that is malformed or could change the meaning of the generated script.
	ErrInvalid = api.InvalidClass("invalid bootstrap input")
	// ErrUnsupported marks a well-formed setting this package cannot bootstrap (kubenet, Calico).
	ErrUnsupported = errors.New("unsupported bootstrap setting")
)

// invalid is the *api.FieldError of class ErrInvalid. value is nil when there is none to show and for
// every secret field: secrets never appear in errors (a bootstrap.Secret would print as <redacted>,
// but nothing here passes one).
func invalid(field string, value any, reason string, args ...any) *api.FieldError {
	return api.Invalid(ErrInvalid, "", field, value, reason, args...)
}

// unsupported is the *api.FieldError of class ErrUnsupported.
func unsupported(field string, value any, reason string, args ...any) *api.FieldError {
	return api.Invalid(ErrUnsupported, "", field, value, reason, args...)
}
