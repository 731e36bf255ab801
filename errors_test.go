package napkit

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/kubeletconfig"
	"github.com/napkit/napkit/manifest"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/snapshot"
)

// One error vocabulary: every package reports bad input as *api.FieldError with its own class as
// Kind; each class matches api.ErrInvalid and still names its package, and the message is the one
// form "class: object: field: reason, got value". Classes that are not bad input (an unsupported
// combination, an unreadable SKU, undecodable text) use the same type without matching ErrInvalid.
func TestInvalidInputVocabulary(t *testing.T) {
	tests := []struct {
		name    string
		class   error
		invalid bool // bad input: errors.Is(err, api.ErrInvalid)
		object  string
		value   any
		text    string
	}{
		{"provisioner", provisioner.ErrInvalidInput, true, "Pod default/web", nil,
			"provisioner: invalid input: Pod default/web: spec.x: bad"},
		{"consolidation", consolidation.ErrInvalidInput, true, "", "0001-01-01T00:00:00Z",
			`consolidation: invalid input: spec.x: bad, got "0001-01-01T00:00:00Z"`},
		{"consolidation budget", consolidation.ErrBudget, true, "NodePool p", "lots",
			`consolidation: misconfigured disruption budget: NodePool p: spec.x: bad, got "lots"`},
		{"kubeletconfig", kubeletconfig.ErrInvalid, true, "", 0, "invalid kubelet configuration: spec.x: bad, got 0"},
		{"bootstrap", bootstrap.ErrInvalid, true, "", nil, "invalid bootstrap input: spec.x: bad"},
		{"imagefamily", imagefamily.ErrInvalid, true, "", "eastus-9", `invalid input: spec.x: bad, got "eastus-9"`},
		{"snapshot", snapshot.ErrInconsistent, true, "Pod default/web-0", nil,
			"snapshot: objects do not fit together: Pod default/web-0: spec.x: bad"},
		{"instancetype options", instancetype.ErrBadOptions, true, "", 7.5, "bad options: spec.x: bad, got 7.5"},
		{"api", nil, true, "", "x", `invalid: spec.x: bad, got "x"`},
		{"imagefamily unsupported", imagefamily.ErrUnsupported, false, "", "Windows2022",
			`unsupported combination: spec.x: bad, got "Windows2022"`},
		{"bootstrap unsupported", bootstrap.ErrUnsupported, false, "", "kubenet", `unsupported bootstrap setting: spec.x: bad, got "kubenet"`},
		{"instancetype SKU", instancetype.ErrBadSKU, false, "Standard_X", "abc", `bad SKU: Standard_X: spec.x: bad, got "abc"`},
		{"manifest decode", manifest.ErrDecode, false, "", "abc", `cannot decode: spec.x: bad, got "abc"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := error(api.Invalid(tc.class, tc.object, "spec.x", tc.value, "bad"))
			assert.Equal(t, tc.text, err.Error())
			if tc.class != nil {
				assert.ErrorIs(t, err, tc.class, "the package's class")
			}
			if tc.invalid {
				assert.ErrorIs(t, err, api.ErrInvalid, "the vocabulary's root")
			} else {
				assert.NotErrorIs(t, err, api.ErrInvalid, "not bad input")
			}
			wrapped := fmt.Errorf("reading in.yaml: %w", err)
			var fe *api.FieldError
			require.ErrorAs(t, wrapped, &fe)
			assert.Equal(t, "spec.x", fe.Field)
		})
	}
	assert.NotErrorIs(t, provisioner.ErrInvalidInput, consolidation.ErrInvalidInput, "classes stay apart")
	assert.NotErrorIs(t, errors.New("invalid"), api.ErrInvalid)
}

// manifest.DocumentError is the position around the one type, not a second field error: errors.As
// reaches the FieldError inside, and the message leads with the file and document.
func TestDocumentErrorWrapsFieldError(t *testing.T) {
	fe := api.Invalid(api.ErrInvalid, "", "spec.overhead.memory", "-1Mi", "must not be negative")
	err := error(&manifest.DocumentError{Position: "in.yaml document 3 (line 37)", Object: `Pod "p"`, Err: fe})
	assert.Equal(t, `in.yaml document 3 (line 37) Pod "p": invalid: spec.overhead.memory: must not be negative, got "-1Mi"`, err.Error())
	var got *api.FieldError
	require.ErrorAs(t, err, &got)
	assert.Same(t, fe, got)
	assert.ErrorIs(t, err, api.ErrInvalid)
}
