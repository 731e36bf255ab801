package provisioner

import (
	"github.com/napkit/napkit/api"
)

// ErrInvalidInput is the class of every error Solve returns: the input names an object or field
// that cannot be planned with. Each is an *api.FieldError naming the object ("Pod default/web",
// "NodePool general-purpose", "Options") and the field. Unschedulable pods are never errors; they
// are Plan.Unschedulable.
var ErrInvalidInput = api.InvalidClass("provisioner: invalid input")

// inputErr is an *api.FieldError of class ErrInvalidInput about a missing or nil entry: no value.
func inputErr(object, field, format string, args ...any) error {
	return api.Invalid(ErrInvalidInput, object, field, nil, format, args...)
}

// badValue is an *api.FieldError of class ErrInvalidInput about a value the planner cannot use; the
// message ends ", got <value>".
func badValue(object, field string, value any, format string, args ...any) error {
	return api.Invalid(ErrInvalidInput, object, field, value, format, args...)
}
