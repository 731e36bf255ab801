package manifest

import (
	"fmt"
	"strconv"
	"strings"
)

// Document is one object of the input, converted to JSON and identified by its header. DecodeFuncs
// receive it.
type Document struct {
	// Source names the input: a file path, or the source given to Decode.
	Source string
	// Index is the 1-based position of the document among the non-empty documents of the source.
	Index int
	// Line is the 1-based line of the source the document starts on.
	Line int
	// Item is the 1-based position inside a List document, or 0.
	Item int
	// Kind, Name and Namespace come from apiVersion, kind and metadata.
	Kind      Kind
	Name      string
	Namespace string
	// JSON is the whole document as JSON.
	JSON []byte
	// pre is KeepObject's typed decode when the parallel stage did it ahead.
	pre *predecoded
}

// Position says where the document is, for messages: `seed.yaml document 3 (line 58)`.
func (d *Document) Position() string { return position(d.Source, d.Index, d.Line, d.Item) }

// position renders a Position in one allocation: it is made for every object read.
func position(source string, index, line, item int) string {
	var sb strings.Builder
	var digits [20]byte
	sb.Grow(len(source) + 48)
	sb.WriteString(source)
	sb.WriteString(" document ")
	sb.Write(strconv.AppendInt(digits[:0], int64(index), 10))
	sb.WriteString(" (line ")
	sb.Write(strconv.AppendInt(digits[:0], int64(line), 10))
	sb.WriteByte(')')
	if item > 0 {
		sb.WriteString(" item ")
		sb.Write(strconv.AppendInt(digits[:0], int64(item), 10))
	}
	return sb.String()
}

// Object names the object for messages: `NodePool "general"`.
func (d *Document) Object() string { return objectName(d.Kind.Kind, d.Namespace, d.Name) }

// objectName is `Kind namespace/name`, or `Kind "name"` for a cluster-scoped object, or "" when
// the kind is unknown.
func objectName(kind, namespace, name string) string {
	if kind == "" {
		return ""
	}
	if namespace != "" {
		return fmt.Sprintf("%s %s/%s", kind, namespace, name)
	}
	return fmt.Sprintf("%s %q", kind, name)
}

// wrap adds the document's position and object to err.
func (d *Document) wrap(err error) error {
	return &DocumentError{Position: d.Position(), Object: d.Object(), Err: err}
}
