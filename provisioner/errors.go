package provisioner

import (
	"github.com/napkit/napkit/api"
)

// ErrInvalidInput is the class of every error Solve returns: the input names an object or field
// that cannot be planned with. Each is an *api.FieldError naming the object ("Pod default/web",
// "NodePool general-purpose", "Options") and the field. Unschedulable pods are never errors; they
// are Plan.Unschedulable.
var ErrInvalidInput = api.InvalidClass("provisioner: invalid input")

// inputErr is an *api.FieldError of class ErrInvalidInput; the value, where there is one, is quoted
// in the reason, which reads "must not be negative, got -1" either way.
func inputErr(object, field, format string, args ...any) error {
	return api.Invalid(ErrInvalidInput, object, field, nil, format, args...)
}
