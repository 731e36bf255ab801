package snapshot

import (
	"github.com/napkit/napkit/api"
)

// ErrInconsistent is the class of every issue: the objects do not fit together (a pod bound to a
// Node the objects lack, a Node of an unknown NodePool, a NodeClaim without pool or type). It is bad
// input, so errors.Is(err, api.ErrInvalid) holds too.
var ErrInconsistent = api.InvalidClass("snapshot: objects do not fit together")

// issue is the *api.FieldError of class ErrInconsistent about one object's field; the reason quotes
// the value ("no Node \"ghost\""), so Value stays nil.
func issue(object, field, reason string, args ...any) *api.FieldError {
	return api.Invalid(ErrInconsistent, object, field, nil, reason, args...)
}
