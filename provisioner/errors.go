package provisioner

import (
	"errors"
	"fmt"

	"github.com/napkit/napkit/api"
)

// ErrInvalidInput is the class of every error Solve returns: the input names an object or field
// that cannot be planned with. Unschedulable pods are never errors; they are Plan.Unschedulable.
var ErrInvalidInput = api.InvalidClass("provisioner: invalid input")

// InputError names the offending object and field.
type InputError struct {
	// Object is "Kind namespace/name" or "Kind name".
	Object string
	// Field is the path of the field, e.g. "spec.affinity.nodeAffinity".
	Field string
	// Err says what is wrong.
	Err error
}

func (e *InputError) Error() string {
	return fmt.Sprintf("provisioner: %s: %s: %v", e.Object, e.Field, e.Err)
}

// Unwrap returns the cause.
func (e *InputError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalidInput) and errors.Is(err, api.ErrInvalid) hold.
func (e *InputError) Is(target error) bool { return errors.Is(ErrInvalidInput, target) }

func inputErr(object, field, format string, args ...any) error {
	return &InputError{Object: object, Field: field, Err: fmt.Errorf(format, args...)}
}
