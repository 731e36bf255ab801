package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"

	"github.com/napkit/napkit/api"
)

// maxValueLen bounds how much of a bad value an error quotes: enough to recognise it, never a whole
// subtree.
const maxValueLen = 80

// locateBadValue finds the deepest part of data that does not decode into a value of type t, and
// returns it as a field error with its path and value: a quantity "abc" in a Deployment becomes
// `spec.template.spec.containers[0].resources.requests.cpu: quantities must match ..., got "abc"`. The JSON package itself reports neither the path nor the value of an error raised by a
// type's own UnmarshalJSON (resource.Quantity, metav1.Time, intstr.IntOrString, ...).
//
// It walks the JSON beside the Go type: for an object, each key against the struct field (or map
// element) it fills; for an array, each element. The first piece that fails alone and whose parts all
// decode is the culprit. nil means every piece decodes, so the failure is not about one value.
func locateBadValue(data []byte, t reflect.Type, path *field.Path) *api.FieldError {
	err := decodeLenient(data, t)
	if err == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !unmarshalsItself(t) {
		if inner := locateInside(data, t, path); inner != nil {
			return inner
		}
	}
	return badField(path, badValue(data), leafDetail(err))
}

// leafDetail says why a leaf value does not decode: the wanted type for a type mismatch, else the
// type's own message.
func leafDetail(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && isJSONKind(te.Value) {
		return fmt.Sprintf("want %v", te.Type)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// locateInside recurses into the keys or elements of data.
func locateInside(data []byte, t reflect.Type, path *field.Path) *api.FieldError {
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if decodeLenient(data, reflect.TypeOf(obj)) != nil || json.Unmarshal(data, &obj) != nil {
			return nil
		}
		fields := jsonFields(t)
		for _, key := range sortedKeys(obj) {
			if ft, ok := fields[key]; ok {
				if fe := locateBadValue(obj[key], ft, path.Child(key)); fe != nil {
					return fe
				}
			}
		}
	case reflect.Map:
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil {
			return nil
		}
		for _, key := range sortedKeys(obj) {
			if fe := locateBadValue(obj[key], t.Elem(), mapChild(path, key)); fe != nil {
				return fe
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // []byte is a base64 string
		}
		var items []json.RawMessage
		if json.Unmarshal(data, &items) != nil {
			return nil
		}
		for i, item := range items {
			if fe := locateBadValue(item, t.Elem(), path.Index(i)); fe != nil {
				return fe
			}
		}
	}
	return nil
}

// isJSONKind reports the JSON package's own description of a mismatched value ("string", "number
// 1.5"); a type's UnmarshalJSON may put its own explanation there instead, which is worth keeping.
func isJSONKind(value string) bool {
	switch value {
	case "string", "bool", "array", "object", "null":
		return true
	}
	return strings.HasPrefix(value, "number")
}

// decodeLenient decodes data into a new value of type t, case-sensitively as the API server does.
func decodeLenient(data []byte, t reflect.Type) error {
	return sigsjson.UnmarshalCaseSensitivePreserveInts(data, reflect.New(t).Interface())
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// unmarshalsItself reports a type with its own UnmarshalJSON: its value is a leaf to report whole.
func unmarshalsItself(t reflect.Type) bool {
	return t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType)
}

// jsonFields maps the JSON names of a struct's fields, including those of embedded (inline) structs,
// to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		inline := f.Anonymous && name == "" || strings.Contains(opts, "inline")
		if inline {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					if _, taken := out[k]; !taken {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// plainKey matches map keys that read well after a dot (cpu, memory); others are bracketed, as
// Kubernetes writes metadata.labels[app.kubernetes.io/name].
var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func mapChild(path *field.Path, key string) *field.Path {
	switch {
	case plainKey.MatchString(key):
		return path.Child(key)
	case strings.IndexFunc(key, func(r rune) bool { return !unicode.IsGraphic(r) }) >= 0:
		return path.Key(strconv.Quote(key)) // a newline in a key must not break the message's line
	}
	return path.Key(key)
}

// badValue is a JSON value as a field error shows it: a string as written (quoted), a number or
// other value as compact JSON; either is cut to maxValueLen.
func badValue(data []byte) any {
	var s string
	if json.Unmarshal(data, &s) == nil {
		return truncate(s)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, data) != nil {
		return truncate(string(data))
	}
	if buf.Len() > maxValueLen {
		return truncate(buf.String())
	}
	return json.RawMessage(buf.Bytes())
}

func truncate(s string) string {
	if len(s) <= maxValueLen {
		return s
	}
	return s[:maxValueLen] + "... (" + strconv.Itoa(len(s)) + " bytes)"
}
