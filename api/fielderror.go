package api

import (
	"errors"
	"fmt"
	"strings"
)

// FieldError is napkit's one error for bad input: which object, which field, what value and why. Every
// package reports bad input with it; Kind keeps the package's class, so errors.Is(err, api.ErrInvalid)
// tells bad input from other failures and errors.Is(err, provisioner.ErrInvalidInput) (or any other
// class) still names the package that refused it. errors.As(err, &fe) reads the parts, whichever
// package found the problem, for example to name the CLI flag or manifest line behind Field.
//
// Value is printed; a secret must never be put there: leave it nil, or pass bootstrap.Secret, which
// prints as <redacted>.
type FieldError struct {
	// Kind is the class sentinel the error matches (see InvalidClass), such as
	// provisioner.ErrInvalidInput; nil means ErrInvalid itself. A class that is not bad input (such as
	// imagefamily.ErrUnsupported) may be used for a well-formed value napkit cannot serve.
	Kind error
	// Object is the object the field belongs to, as "Kind namespace/name" or "Kind name"; "" when the
	// input is one object (a settings struct, a command line) or the field path names it.
	Object string
	// Field is the path of the rejected field, e.g. "spec.template.spec.requirements[1].values[0]".
	Field string
	// Value is the rejected value as given; nil when there is none to show (a missing field, a secret).
	Value any
	// Reason says what is wrong or what would have been accepted.
	Reason string
	// Err is the cause the Reason came from (a parse error, say), or nil.
	Err error
}

// Invalid builds a *FieldError of class kind; reason is a format string, and a %w verb in it sets Err
// as fmt.Errorf would wrap it.
func Invalid(kind error, object, field string, value any, reason string, args ...any) *FieldError {
	cause := fmt.Errorf(reason, args...)
	return &FieldError{Kind: kind, Object: object, Field: field, Value: value, Reason: cause.Error(),
		Err: errors.Unwrap(cause)}
}

// Error renders "kind: object: field: reason, got value", leaving out the parts that are empty.
func (e *FieldError) Error() string {
	return e.kind().Error() + ": " + e.Detail()
}

// Detail is Error without the class: "object: field: reason, got value". ValidationError lists
// several with it, under one class.
func (e *FieldError) Detail() string {
	var b strings.Builder
	for _, part := range []string{e.Object, e.Field} {
		if part != "" {
			b.WriteString(part)
			b.WriteString(": ")
		}
	}
	b.WriteString(e.Reason)
	if e.Value != nil {
		b.WriteString(", got ")
		b.WriteString(e.ValueString())
	}
	return b.String()
}

// ValueString renders Value as Error does: strings (and Stringers, such as a secret's <redacted>)
// quoted, numbers and booleans bare, anything else as JSON; "" when there is no value.
func (e *FieldError) ValueString() string {
	if e.Value == nil {
		return ""
	}
	return formatValue(e.Value)
}

// Unwrap returns Kind, so errors.Is sees the class and, through it, ErrInvalid. It returns one
// error, not a list: code that walks errors.Join trees (interface{ Unwrap() []error }) must see a
// FieldError as a leaf, not as a join of its class and cause.
func (e *FieldError) Unwrap() error { return e.kind() }

// Is lets errors.Is reach the cause as well as the class.
func (e *FieldError) Is(target error) bool { return e.Err != nil && errors.Is(e.Err, target) }

// As lets errors.As reach the cause as well as the class.
func (e *FieldError) As(target any) bool { return e.Err != nil && errors.As(e.Err, target) }

func (e *FieldError) kind() error {
	if e.Kind == nil {
		return ErrInvalid
	}
	return e.Kind
}
