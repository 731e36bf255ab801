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

// ValidationError lists everything wrong with one object, so a user fixes a manifest in one pass
// rather than one error per run. Its entries are the same *FieldError every package returns (no
// second field-error type): each names a field path and, where there is one, the bad value. It
// matches ErrInvalid, and errors.As finds each *FieldError in it.
type ValidationError struct {
	Errors []*FieldError
}

// Error renders every problem as "path: what is wrong, got value", separated by "; ".
func (e *ValidationError) Error() string {
	lines := make([]string, 0, len(e.Errors))
	for _, fe := range e.Errors {
		lines = append(lines, fe.Detail())
	}
	return strings.Join(lines, "; ")
}

// Is makes errors.Is(err, ErrInvalid) true, even for an empty list.
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
func toError(list []*FieldError) error {
	if len(list) == 0 {
		return nil
	}
	return &ValidationError{Errors: list}
}

// fromK8s turns the field errors of k8s.io's own validation helpers into napkit's, with the value
// shown only where the error is about one (not for a missing or forbidden field), as before.
func fromK8s(list field.ErrorList) []*FieldError {
	out := make([]*FieldError, 0, len(list))
	for _, fe := range list {
		e := &FieldError{Kind: ErrInvalid, Field: fe.Field, Reason: fe.Detail}
		if e.Reason == "" {
			e.Reason = fe.Type.String()
		}
		switch fe.Type {
		case field.ErrorTypeRequired, field.ErrorTypeForbidden, field.ErrorTypeInternal, field.ErrorTypeTooLong:
		default:
			e.Value = fe.BadValue
		}
		out = append(out, e)
	}
	return out
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
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a value reads as written: <redacted>, a&b, not \u003c...
	if err := enc.Encode(v); err == nil {
		return strings.TrimSuffix(b.String(), "\n")
	}
	return fmt.Sprintf("%v", v)
}

// invalid builds the FieldError of a rejected value, with a formatted reason. Paths are built
// with k8s.io's field.Path, so they read as the apiserver's do.
func invalid(p *field.Path, value any, format string, args ...any) *FieldError {
	return &FieldError{Kind: ErrInvalid, Field: p.String(), Value: value, Reason: fmt.Sprintf(format, args...)}
}

// required builds the FieldError of a missing field: no value to show.
func required(p *field.Path, format string, args ...any) *FieldError {
	return &FieldError{Kind: ErrInvalid, Field: p.String(), Reason: fmt.Sprintf(format, args...)}
}

// tooMany builds the FieldError of a list longer than the CRD allows, as field.TooMany words it.
func tooMany(p *field.Path, actual, limit int) *FieldError {
	return invalid(p, actual, "must have at most %d items", limit)
}

// duplicate builds the FieldError of a value that appears twice where it must be unique.
func duplicate(p *field.Path, value any) *FieldError {
	return invalid(p, value, "Duplicate value")
}
