package api

import "fmt"

// Note tells the user about something napkit decided on their behalf, such as a default it filled in
// that the CRD would not have, or a document it skipped. Notes are not errors: the input is usable.
type Note struct {
	// Object is "Kind/name" of the object the note is about.
	Object string
	// Field is the field path the note is about, or "" for the whole object.
	Field string
	// Message says what happened and why.
	Message string
}

// String renders the note as "Object: field: message".
func (n Note) String() string {
	switch {
	case n.Object == "" && n.Field == "":
		return n.Message
	case n.Field == "":
		return fmt.Sprintf("%s: %s", n.Object, n.Message)
	case n.Object == "":
		return fmt.Sprintf("%s: %s", n.Field, n.Message)
	}
	return fmt.Sprintf("%s: %s: %s", n.Object, n.Field, n.Message)
}
