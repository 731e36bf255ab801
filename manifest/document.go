package manifest

import (
	"fmt"
	"strconv"
	"unsafe"
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
	// positions renders Position while the build's walk hands the document to its DecodeFunc.
	positions *positionArena
}

// Position says where the document is, for messages: `seed.yaml document 3 (line 58)`.
func (d *Document) Position() string {
	if d.positions != nil {
		return d.positions.position(d.Source, d.Index, d.Line, d.Item)
	}
	return position(d.Source, d.Index, d.Line, d.Item)
}

// position renders a Position in one allocation (its bytes are not written again).
func position(source string, index, line, item int) string {
	b := appendPosition(make([]byte, 0, len(source)+48), source, index, line, item)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func appendPosition(b []byte, source string, index, line, item int) []byte {
	b = append(b, source...)
	b = append(b, " document "...)
	b = strconv.AppendInt(b, int64(index), 10)
	b = append(b, " (line "...)
	b = strconv.AppendInt(b, int64(line), 10)
	b = append(b, ')')
	if item > 0 {
		b = append(b, " item "...)
		b = strconv.AppendInt(b, int64(item), 10)
	}
	return b
}

// positionArena renders the positions of one build's walk into shared blocks: every kept object
// has one (Object.Position), and 10,000 of them one by one were 10,000 small allocations on the
// sequential walk, in fresh memory. The walk is one goroutine, and each string's bytes are written
// once and never again (a block is only appended to, and a full one is left to its strings).
type positionArena struct{ block []byte }

const positionBlock = 8 << 10

func (a *positionArena) position(source string, index, line, item int) string {
	if need := len(source) + 88; cap(a.block)-len(a.block) < need {
		a.block = make([]byte, 0, max(positionBlock, need))
	}
	start := len(a.block)
	a.block = appendPosition(a.block, source, index, line, item)
	return unsafe.String(&a.block[start], len(a.block)-start)
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
