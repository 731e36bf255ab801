package kubeletconfig

import (
	"fmt"

	"github.com/napkit/napkit/api"
)

// ErrInvalid is the sentinel every validation error in this package wraps, so callers can tell bad input
// (fix the manifest) from everything else with errors.Is.
var ErrInvalid = api.InvalidClass("invalid kubelet configuration")

// FieldError says which field was rejected, with what value and why. It unwraps to ErrInvalid; use
// errors.As to read the field path, for example to point a user at the line of their manifest.
type FieldError struct {
	// Field is the path of the rejected field, such as spec.kubelet.imageGCLowThresholdPercent or
	// evictionHard[memory.available].
	Field string
	// Value is the rejected value as the user wrote it (or as Go prints it).
	Value string
	// Detail says what would have been accepted.
	Detail string
}

// Error renders "field: invalid value "v": detail".
func (e *FieldError) Error() string {
	return fmt.Sprintf("%v: %s: invalid value %q: %s", ErrInvalid, e.Field, e.Value, e.Detail)
}

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// invalid builds a FieldError; value is printed with %v so callers need not pre-format numbers.
func invalid(field string, value any, detail string, args ...any) *FieldError {
	return &FieldError{Field: field, Value: fmt.Sprint(value), Detail: fmt.Sprintf(detail, args...)}
}
