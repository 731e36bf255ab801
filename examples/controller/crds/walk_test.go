package crds

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var (
	marshalerType  = reflect.TypeFor[json.Marshaler]()
	objectMetaType = reflect.TypeFor[metav1.ObjectMeta]()
)

// compareSchema walks a Go API type and its schema side by side. missing lists the type's JSON
// paths the schema lacks or types differently; unknown lists the schema's properties the type lacks.
func compareSchema(v any, s *apiextensionsv1.JSONSchemaProps) (missing, unknown []string) {
	w := &walker{}
	w.walk(reflect.TypeOf(v), s, "")
	sort.Strings(w.missing)
	sort.Strings(w.unknown)
	return w.missing, w.unknown
}

type walker struct{ missing, unknown []string }

func (w *walker) walk(t reflect.Type, s *apiextensionsv1.JSONSchemaProps, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case s == nil:
		w.missing = append(w.missing, path)
	case reflect.PointerTo(t).Implements(marshalerType):
		// Durations, times and quantities marshal themselves into strings (or int-or-string).
		w.expect(s.Type == "string" || s.XIntOrString, path+" (a string)")
	case t == objectMetaType:
		w.expect(s.Type == "object", path+" (metadata)")
	case t.Kind() == reflect.Struct:
		w.expect(s.Type == "object", path+" (an object)")
		seen := map[string]bool{}
		w.fields(t, s, path, seen)
		for name := range s.Properties {
			if !seen[name] {
				w.unknown = append(w.unknown, path+"."+name)
			}
		}
	case t.Kind() == reflect.Slice:
		w.expect(s.Type == "array" && s.Items != nil, path+" (an array)")
		if s.Items != nil {
			w.walk(t.Elem(), s.Items.Schema, path+"[]")
		}
	case t.Kind() == reflect.Map:
		w.expect(s.Type == "object" && s.AdditionalProperties != nil, path+" (a map)")
		if s.AdditionalProperties != nil {
			w.walk(t.Elem(), s.AdditionalProperties.Schema, path+"{}")
		}
	default:
		w.expect(s.Type == jsonType(t.Kind()), path+" ("+jsonType(t.Kind())+")")
	}
}

// fields walks the struct's JSON fields, descending into inlined ones (TypeMeta) with the same schema.
func (w *walker) fields(t reflect.Type, s *apiextensionsv1.JSONSchemaProps, path string, seen map[string]bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
			continue
		case name == "" && f.Anonymous:
			w.fields(f.Type, s, path, seen)
			continue
		case name == "":
			name = f.Name
		}
		seen[name] = true
		if prop, ok := s.Properties[name]; ok {
			w.walk(f.Type, &prop, path+"."+name)
		} else {
			w.missing = append(w.missing, path+"."+name)
		}
	}
}

func (w *walker) expect(ok bool, what string) {
	if !ok {
		w.missing = append(w.missing, what)
	}
}

func jsonType(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Float32, reflect.Float64:
		return "number"
	default:
		return "integer"
	}
}
