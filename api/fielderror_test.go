package api

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// secretLike prints as <redacted> with every verb, as bootstrap.Secret does (api cannot import it).
type secretLike struct{ value string }

func (secretLike) String() string { return "<redacted>" }

var errClassA = InvalidClass("a: invalid input")
var errClassB = InvalidClass("b: invalid input")
var errNotInput = errors.New("unsupported")

func TestFieldErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  *FieldError
		want string
	}{
		{"every part", &FieldError{Kind: errClassA, Object: "Pod default/web", Field: "spec.replicas", Value: -3, Reason: "must not be negative"},
			"a: invalid input: Pod default/web: spec.replicas: must not be negative, got -3"},
		{"string value quoted", &FieldError{Kind: errClassA, Field: "zone", Value: "eastus-9", Reason: "no such zone"},
			`a: invalid input: zone: no such zone, got "eastus-9"`},
		{"empty string value shown", &FieldError{Kind: errClassA, Field: "name", Value: "", Reason: "must be set"},
			`a: invalid input: name: must be set, got ""`},
		{"no value", &FieldError{Kind: errClassA, Object: "Node #0", Field: "node", Reason: "is nil"},
			"a: invalid input: Node #0: node: is nil"},
		{"no field", &FieldError{Kind: errClassA, Object: "Pod #2", Reason: "is nil"}, "a: invalid input: Pod #2: is nil"},
		{"nil kind is ErrInvalid", &FieldError{Field: "spec.x", Value: true, Reason: "must be false"}, "invalid: spec.x: must be false, got true"},
		{"list as JSON", &FieldError{Kind: errClassA, Field: "spec.maxUnavailable", Value: []int{1}, Reason: "want a count"},
			"a: invalid input: spec.maxUnavailable: want a count, got [1]"},
		{"secret redacted", &FieldError{Kind: errClassA, Field: "token", Value: secretLike{"abcdef.0123456789abcdef"}, Reason: "bad shape"},
			`a: invalid input: token: bad shape, got "<redacted>"`},
		{"other class", &FieldError{Kind: errNotInput, Field: "network plugin", Value: "kubenet", Reason: "not supported"},
			`unsupported: network plugin: not supported, got "kubenet"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.err.Error())
			assert.NotContains(t, tc.err.Error(), "0123456789abcdef")
		})
	}
}

func TestFieldErrorIsAs(t *testing.T) {
	cause := fs.ErrNotExist
	tests := []struct {
		name    string
		err     error
		is      []error
		isNot   []error
		asField string
	}{
		{"class and root", Invalid(errClassA, "", "f", 1, "bad"), []error{errClassA, ErrInvalid}, []error{errClassB, errNotInput}, "f"},
		{"nil kind is the root", &FieldError{Field: "g"}, []error{ErrInvalid}, []error{errClassA}, "g"},
		{"wrapped by %w", fmt.Errorf("reading x: %w", Invalid(errClassB, "", "h", nil, "bad")), []error{errClassB, ErrInvalid}, []error{errClassA}, "h"},
		{"cause through %w in the reason", Invalid(errClassA, "", "i", "x", "cannot read: %w", cause), []error{errClassA, ErrInvalid, cause}, []error{errClassB}, "i"},
		{"not bad input", Invalid(errNotInput, "", "j", "x", "no"), []error{errNotInput}, []error{ErrInvalid}, "j"},
		{"in a list", &ValidationError{Errors: []*FieldError{Invalid(nil, "", "k", 1, "bad")}}, []error{ErrInvalid}, []error{errClassA}, "k"},
		{"joined", errors.Join(errors.New("other"), Invalid(errClassA, "", "l", 1, "bad")), []error{errClassA, ErrInvalid}, nil, "l"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, target := range tc.is {
				assert.ErrorIs(t, tc.err, target)
			}
			for _, target := range tc.isNot {
				assert.NotErrorIs(t, tc.err, target)
			}
			var fe *FieldError
			require.ErrorAs(t, tc.err, &fe)
			assert.Equal(t, tc.asField, fe.Field)
		})
	}
}

// A FieldError is a leaf to code that walks errors.Join trees, as the controller's flag naming does.
func TestFieldErrorIsNotAJoin(t *testing.T) {
	var err error = Invalid(errClassA, "", "f", 1, "bad: %w", fs.ErrNotExist)
	_, isJoin := err.(interface{ Unwrap() []error })
	assert.False(t, isJoin)
	var pe *fs.PathError
	assert.False(t, errors.As(err, &pe), "no PathError in the cause")
	err = Invalid(errClassA, "", "f", 1, "bad: %w", &fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist})
	assert.True(t, errors.As(err, &pe), "errors.As reaches the cause")
}

func TestInvalidKeepsReasonAndCause(t *testing.T) {
	fe := Invalid(errClassA, "Options", "Region", "", "want one of %s: %w", "eastus", fs.ErrNotExist)
	assert.Equal(t, "want one of eastus: file does not exist", fe.Reason)
	assert.Equal(t, fs.ErrNotExist, fe.Err)
	assert.Equal(t, `""`, fe.ValueString())
	assert.Nil(t, Invalid(errClassA, "", "f", nil, "plain").Err, "no %w, no cause")
	assert.Equal(t, "", (&FieldError{}).ValueString())
}
