package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/napkit/napkit/api"
)

// ErrDecode is wrapped by every error about input that could not be read into objects: bad YAML or
// JSON, unknown or mistyped fields, missing apiVersion or kind, duplicate names. Validation failures
// wrap api.ErrInvalid instead.
var ErrDecode = errors.New("cannot decode")

// ErrNoObjects is returned when a source named by the user (a file, a directory, standard input)
// holds no document, or nothing read is a kind napkit reads: planning that would answer a question
// that was never asked.
var ErrNoObjects = errors.New("no Kubernetes objects")

// ErrTooLarge is returned for a source larger than Decoder.MaxBytes. It wraps ErrDecode.
var ErrTooLarge = fmt.Errorf("%w: source too large", ErrDecode)

// DocumentError is an error about one document: it says where the document is (source, index, line)
// and, once known, which object it holds.
type DocumentError struct {
	// Position is where the document is, as Document.Position renders it.
	Position string
	// Object is `Kind "name"`, or "" when the document could not be identified.
	Object string
	Err    error
}

// Error renders "position object: cause".
func (e *DocumentError) Error() string {
	if e.Object == "" {
		return fmt.Sprintf("%s: %v", e.Position, e.Err)
	}
	return fmt.Sprintf("%s %s: %v", e.Position, e.Object, e.Err)
}

// Unwrap returns the cause, which wraps ErrDecode or api.ErrInvalid.
func (e *DocumentError) Unwrap() error { return e.Err }

// decodeErr wraps a message in ErrDecode.
func decodeErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrDecode, fmt.Sprintf(format, args...))
}

// badField is a value that does not decode, as the one error type for bad input: the class is
// ErrDecode (not api.ErrInvalid: nothing was validated yet), and the path "" for the whole document.
func badField(path *field.Path, value any, reason string) *api.FieldError {
	name := ""
	if path != nil {
		name = path.String()
	}
	return &api.FieldError{Kind: ErrDecode, Field: name, Value: value, Reason: reason}
}

// typeError rewrites a JSON type mismatch as "field.path: cannot decode X as T"; the JSON package's
// own wording puts the path in the middle and the Go struct name in front of it.
func typeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return decodeErr("%s: cannot decode %s as %v", te.Field, te.Value, te.Type)
	}
	return decodeErr("%v", err)
}

// yamlLine matches the line number in a YAML parser error.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// shiftYAMLLines turns the parser's document-relative line numbers into lines of the source.
func shiftYAMLLines(msg string, firstLine int) string {
	return yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(m[len("line "):])
		if err != nil {
			return m
		}
		return "line " + strconv.Itoa(n+firstLine-1)
	})
}

// noObjects is ErrNoObjects for the named sources, saying what was skipped when anything was.
func noObjects(sources string, skipped []api.Note) error {
	if len(skipped) == 0 {
		return fmt.Errorf("%s: %w: no documents", sources, ErrNoObjects)
	}
	msgs := make([]string, len(skipped))
	for i, n := range skipped {
		msgs[i] = n.Message
	}
	return fmt.Errorf("%s: %w napkit reads: %s", sources, ErrNoObjects, strings.Join(msgs, "; "))
}
