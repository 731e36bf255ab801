package snapshot

import (
	"errors"
	"fmt"
)

// ErrInconsistent is wrapped by every Issue: the objects do not fit together.
var ErrInconsistent = errors.New("snapshot: objects do not fit together")

// Issue is one object that does not fit the others, naming the object, the field and what is wrong.
type Issue struct {
	// Object is "Kind namespace/name" or "Kind name".
	Object string
	// Field is the path of the field, e.g. "spec.nodeName".
	Field string
	// Reason says what is wrong, quoting the value.
	Reason string
}

func (i *Issue) Error() string { return fmt.Sprintf("%s: %s: %s", i.Object, i.Field, i.Reason) }

// Unwrap lets errors.Is(err, ErrInconsistent) match.
func (i *Issue) Unwrap() error { return ErrInconsistent }
