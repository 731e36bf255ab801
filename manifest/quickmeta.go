package manifest

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// metaField is the string field of an ObjectMeta that quickMeta reads for key, or nil.
func metaField(m *metav1.ObjectMeta, key string) *string {
	switch key {
	case "name":
		return &m.Name
	case "namespace":
		return &m.Namespace
	case "generateName":
		return &m.GenerateName
	case "resourceVersion":
		return &m.ResourceVersion
	case "uid":
		return (*string)(&m.UID)
	}
	return nil
}

// quickMeta reads the metadata block of a generated pod (string fields such as name, namespace and
// uid, and labels and annotations of strings) straight into an ObjectMeta and its JSON, which is
// what converting the block and decoding it strictly give for that shape; for anything else it
// reports false and the caller takes the general way. Why: that way (a tree of maps, JSON, a
// reflective decode) was half of the time spent on each templated pod.
func quickMeta(block []byte) (metav1.ObjectMeta, []byte, bool) {
	var meta metav1.ObjectMeta
	lines, ok := contentLines(block)
	if !ok || len(lines) < 2 || lines[0].text != "metadata:" || lines[0].indent != 0 {
		return meta, nil, false
	}
	q := quickParser{lines: lines[1:], indent: lines[1].indent, fields: make([]quickField, 0, 4)}
	for q.i < len(q.lines) {
		if !q.entry(&meta) {
			return meta, nil, false
		}
	}
	return meta, q.json(), true
}

// quickParser reads the entries of a metadata block, keeping each one's value for its JSON. A
// block has a handful of entries, so they are a slice searched in turn rather than a map.
type quickParser struct {
	lines  []contentLine
	i      int
	indent int
	fields []quickField
}

// quickField is one entry of the block: a string, or the JSON of a map of strings.
type quickField struct {
	key, str string
	mapJSON  []byte // nil for a string
}

func (q *quickParser) has(key string) bool {
	return slices.ContainsFunc(q.fields, func(f quickField) bool { return f.key == key })
}

// entry reads one "key: value" line, or a map key and the lines below it.
func (q *quickParser) entry(meta *metav1.ObjectMeta) bool {
	l := q.lines[q.i]
	key, value, ok := splitKey(l.text)
	if !ok || q.has(key) || l.indent != q.indent || isSeqLine(l.text) {
		return false
	}
	q.i++
	if field := metaField(meta, key); field != nil {
		s, ok := quickString(value)
		*field = s
		q.fields = append(q.fields, quickField{key: key, str: s})
		return ok
	}
	if value != "" || (key != "labels" && key != "annotations") {
		return false
	}
	m, js, ok := q.stringMap()
	if key == "labels" {
		meta.Labels = m
	} else {
		meta.Annotations = m
	}
	q.fields = append(q.fields, quickField{key: key, mapJSON: js})
	return ok
}

// stringMap reads the "k: v" lines below a map key, all strings, and their JSON (keys sorted).
func (q *quickParser) stringMap() (map[string]string, []byte, bool) {
	m := map[string]string{}
	var keys []string
	for q.i < len(q.lines) && q.lines[q.i].indent > q.indent {
		l := q.lines[q.i]
		k, v, ok := splitKey(l.text)
		if _, dup := m[k]; !ok || dup || l.indent != q.lines[q.i-len(keys)].indent || isSeqLine(l.text) {
			return nil, nil, false
		}
		s, ok := quickString(v)
		if !ok {
			return nil, nil, false
		}
		m[k] = s
		keys = append(keys, k)
		q.i++
	}
	if len(keys) == 0 {
		return nil, nil, false
	}
	slices.Sort(keys)
	js := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			js = append(js, ',')
		}
		js = append(appendJSONString(js, k), ':')
		js = appendJSONString(js, m[k])
	}
	return m, append(js, '}'), true
}

// json is the block's JSON as appendJSON writes it: {"metadata":{...}}, keys sorted.
func (q *quickParser) json() []byte {
	slices.SortFunc(q.fields, func(a, b quickField) int { return strings.Compare(a.key, b.key) })
	js := append(make([]byte, 0, 128), `{"metadata":{`...)
	for i, f := range q.fields {
		if i > 0 {
			js = append(js, ',')
		}
		js = append(appendJSONString(js, f.key), ':')
		if f.mapJSON != nil {
			js = append(js, f.mapJSON...)
		} else {
			js = appendJSONString(js, f.str)
		}
	}
	return append(js, "}}"...)
}

// quickString reads an inline scalar that is a string (not empty, a number, a word or null).
func quickString(text string) (string, bool) {
	if text == "" {
		return "", false
	}
	v, ok := scalar(text)
	s, isString := v.(string)
	return s, ok && isString
}
