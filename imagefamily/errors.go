package imagefamily

import (
	"errors"
	"fmt"

	"github.com/napkit/napkit/api"
)

// Sentinel errors. Every error this package returns wraps one of them, so callers branch with
// errors.Is rather than on message text.
var (
	// ErrInvalid marks input that is malformed: an unknown image family or mode, an unparseable
	// version or image ID. The fix is in the manifest or the flags.
	ErrInvalid = api.InvalidClass("invalid input")
	// ErrUnsupported marks well-formed input that asks for a combination no node image serves, such
	// as Windows in a script-based mode or FIPS with Ubuntu2404.
	ErrUnsupported = errors.New("unsupported combination")
	// ErrNoImage marks a family with no image for the SKU's architecture and Hyper-V generations.
	ErrNoImage = errors.New("no node image")
	// ErrNoImageVersion marks an image definition with no usable version to boot.
	ErrNoImageVersion = errors.New("no node image version")
)

// Error names what was rejected and why. It wraps one of the sentinels above (Kind). Values are
// never secrets: nothing secret is validated by this package.
type Error struct {
	// Field is what was rejected, e.g. "spec.imageFamily" or "mode".
	Field string
	// Value is the rejected value as given.
	Value string
	// Reason says what would have been accepted.
	Reason string
	// Kind is the sentinel the error wraps.
	Kind error
}

// Error renders "kind: field "value": reason".
func (e *Error) Error() string {
	return fmt.Sprintf("%v: %s %q: %s", e.Kind, e.Field, e.Value, e.Reason)
}

// Unwrap returns Kind so errors.Is(err, ErrUnsupported) and friends hold.
func (e *Error) Unwrap() error { return e.Kind }

// newError builds an *Error; reason is a format string so callers need not pre-format.
func newError(kind error, field, value, reason string, args ...any) *Error {
	return &Error{Field: field, Value: value, Reason: fmt.Sprintf(reason, args...), Kind: kind}
}
