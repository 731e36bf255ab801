package requirements

import (
	"errors"
	"fmt"
)

// ErrIncompatible is the class of every error Compatible and Intersects return; test with errors.Is.
// errors.As with *IncompatibleError gives the key and both sides.
var ErrIncompatible = errors.New("requirements: incompatible")

// Reason says why one key makes two Requirements incompatible.
type Reason int

const (
	// ReasonUndefined means the incoming requirement needs the label to be present (In, Exists or a
	// bound), the existing requirements do not define it, and it is not allowed to be undefined.
	ReasonUndefined Reason = iota + 1
	// ReasonDisjoint means both sides constrain the key and no value satisfies both.
	ReasonDisjoint
)

func (r Reason) String() string {
	switch r {
	case ReasonUndefined:
		return "undefined"
	case ReasonDisjoint:
		return "disjoint"
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// IncompatibleError names the key on which two Requirements conflict and both sides of the conflict.
// The message is formatted only when Error is called, so rejecting many instance types stays cheap.
type IncompatibleError struct {
	Key    string
	Reason Reason
	// Existing is the requirement of the receiver of Compatible or Intersects; nil when Reason is
	// ReasonUndefined.
	Existing *Requirement
	// Incoming is the requirement of the argument.
	Incoming *Requirement
}

func (e *IncompatibleError) Error() string {
	if e.Reason == ReasonUndefined {
		return fmt.Sprintf("requirements: label %q is not defined, but %s needs it", e.Key, e.Incoming)
	}
	return fmt.Sprintf("requirements: label %q: %s does not intersect %s", e.Key, e.Incoming, e.Existing)
}

// Is makes errors.Is(err, ErrIncompatible) hold.
func (e *IncompatibleError) Is(target error) bool {
	return target == ErrIncompatible
}
