package kubeletconfig

import (
	"github.com/napkit/napkit/api"
)

// ErrInvalid is the class every validation error in this package has, so callers can tell bad input
// (fix the manifest) from everything else with errors.Is. Each error is an *api.FieldError of this
// class: errors.As reads the field path, for example to point a user at the line of their manifest.
var ErrInvalid = api.InvalidClass("invalid kubelet configuration")

// invalid builds the *api.FieldError of a rejected field: the value as given (printed as the user
// wrote it: strings quoted, numbers bare), and a detail saying what would have been accepted.
func invalid(field string, value any, detail string, args ...any) *api.FieldError {
	return api.Invalid(ErrInvalid, "", field, value, detail, args...)
}
