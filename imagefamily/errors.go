package imagefamily

import (
	"errors"

	"github.com/napkit/napkit/api"
)

// Sentinel errors. Every error this package returns is an *api.FieldError of one of these classes
// (its Kind), so callers branch with errors.Is rather than on message text, and errors.As gives the
// field and value.
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

// newError builds the *api.FieldError of class kind about a field of the request (no object: the
// request is one). Values are never secrets: nothing secret is validated by this package. value is
// nil when there is none to show; reason is a format string so callers need not pre-format.
func newError(kind error, field string, value any, reason string, args ...any) *api.FieldError {
	return api.Invalid(kind, "", field, value, reason, args...)
}
