package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ErrInvalid is the root of napkit's error vocabulary for bad input: every validation error wraps it,
// and so does each package's own class (see InvalidClass), so callers tell bad input from other
// failures with errors.Is(err, api.ErrInvalid).
var ErrInvalid = errors.New("invalid")

// InvalidClass returns a sentinel for one package's invalid input: it reads msg and wraps ErrInvalid,
// so errors.Is(err, api.ErrInvalid) tells bad input from other failures whichever package found it,
// and errors.Is(err, thatSentinel) still names the package. Every ErrInvalid* of napkit is one.
func InvalidClass(msg string) error { return &invalidClass{msg: msg} }

type invalidClass struct{ msg string }

func (c *invalidClass) Error() string { return c.msg }

// Unwrap makes errors.Is(class, ErrInvalid) hold.
func (c *invalidClass) Unwrap() error { return ErrInvalid }

// ValidationError lists everything wrong with one object; each entry names a field path and, where
// there is one, the bad value. It matches ErrInvalid, and errors.As finds each *field.Error in it.
type ValidationError struct {
	Errors field.ErrorList
}

// Error renders every problem as "path: what is wrong, got value", separated by "; ".
func (e *ValidationError) Error() string {
	lines := make([]string, 0, len(e.Errors))
	for _, fe := range e.Errors {
		lines = append(lines, renderFieldError(fe))
	}
	return strings.Join(lines, "; ")
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// Unwrap exposes each field error, as errors.Join does.
func (e *ValidationError) Unwrap() []error {
	out := make([]error, 0, len(e.Errors))
	for _, fe := range e.Errors {
		out = append(out, fe)
	}
	return out
}

// toError turns a list into an error, or nil when the list is empty (never a typed nil).
func toError(list field.ErrorList) error {
	if len(list) == 0 {
		return nil
	}
	return &ValidationError{Errors: list}
}

// renderFieldError writes "path: detail, got value"; the k8s rendering puts the value before the
// explanation, which reads badly for napkit's longer details.
func renderFieldError(fe *field.Error) string {
	detail := fe.Detail
	if detail == "" {
		detail = fe.Type.String()
	}
	switch fe.Type {
	case field.ErrorTypeRequired, field.ErrorTypeForbidden, field.ErrorTypeInternal, field.ErrorTypeTooLong:
		return fmt.Sprintf("%s: %s", fe.Field, detail)
	}
	return fmt.Sprintf("%s: %s, got %s", fe.Field, detail, formatValue(fe.BadValue))
}

// formatValue renders a bad value the way it would appear in YAML-ish JSON: strings quoted, lists as
// JSON arrays.
func formatValue(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case fmt.Stringer:
		return strconv.Quote(t.String())
	case int, int32, int64, bool, float64:
		return fmt.Sprint(t)
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprintf("%v", v)
}

// invalid builds a field.Invalid error with a formatted detail.
func invalid(p *field.Path, value any, format string, args ...any) *field.Error {
	return field.Invalid(p, value, fmt.Sprintf(format, args...))
}

// required builds a field.Required error with a formatted detail.
func required(p *field.Path, format string, args ...any) *field.Error {
	return field.Required(p, fmt.Sprintf(format, args...))
}
