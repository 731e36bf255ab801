package napkit

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/kubeletconfig"
	"github.com/napkit/napkit/provisioner"
)

// One error vocabulary: every package's invalid-input class, and the typed errors that carry it,
// match api.ErrInvalid and still their own class; their messages are the package's own.
func TestInvalidInputVocabulary(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		class error
		text  string
	}{
		{"provisioner", api.Invalid(provisioner.ErrInvalidInput, "Pod default/web", "spec.containers[0]", nil, "negative request"),
			provisioner.ErrInvalidInput, "provisioner: invalid input: Pod default/web: spec.containers[0]: negative request"},
		{"consolidation", api.Invalid(consolidation.ErrInvalidInput, "", "Now", "0001-01-01T00:00:00Z", "required"),
			consolidation.ErrInvalidInput, `consolidation: invalid input: Now: required, got "0001-01-01T00:00:00Z"`},
		{"kubeletconfig", api.Invalid(kubeletconfig.ErrInvalid, "", "maxPods", 0, "must be at least 1"),
			kubeletconfig.ErrInvalid, `invalid kubelet configuration: maxPods: must be at least 1, got 0`},
		{"bootstrap", api.Invalid(bootstrap.ErrInvalid, "", "API server host", "x y", "must be a DNS name or IP address"),
			bootstrap.ErrInvalid, `invalid bootstrap input: API server host: must be a DNS name or IP address, got "x y"`},
		{"imagefamily", api.Invalid(imagefamily.ErrInvalid, "", "zone", "eastus-9", "no offering there"),
			imagefamily.ErrInvalid, `invalid input: zone: no offering there, got "eastus-9"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorIs(t, tc.err, api.ErrInvalid, "the vocabulary's root")
			assert.ErrorIs(t, tc.err, tc.class, "the package's class")
			assert.Contains(t, tc.err.Error(), tc.text)
		})
	}
	assert.NotErrorIs(t, provisioner.ErrInvalidInput, consolidation.ErrInvalidInput, "classes stay apart")
	assert.NotErrorIs(t, errors.New("invalid"), api.ErrInvalid)
}
