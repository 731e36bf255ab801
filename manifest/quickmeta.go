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
// uid, and labels and annotations of strings) straight into meta, and keeps its entries in fields
// for its JSON; together they are what converting the block and decoding it strictly give for that
// shape. For anything else it reports false and the caller takes the general way. Why: that way (a
// tree of maps, JSON, a reflective decode) was half of the time spent on each templated pod.
//
// It reads the block's lines in place and keeps the entries in a fixed array: the block's text,
// copied once, is the only allocation for a block of strings (the labels' maps and JSON aside), as
// every byte allocated while reading is memory a new process must first fault in.
func quickMeta(block []byte, meta *metav1.ObjectMeta, fields *quickFields) bool {
	if !printableASCII(block) {
		return false
	}
	q := quickParser{lines: lineReader{rest: string(block)}}
	q.lines.next()
	if first := q.lines.cur; !q.lines.ok || first.text != "metadata:" || first.indent != 0 {
		return false
	}
	if q.lines.next(); !q.lines.ok {
		return false
	}
	q.indent = q.lines.cur.indent
	for q.lines.ok {
		if !q.entry(meta) {
			return false
		}
	}
	*fields = q.fields
	return true
}

// printableASCII reports data made of printable ASCII and newlines, the bytes contentLines takes.
func printableASCII(data []byte) bool {
	for _, c := range data {
		if (c < 0x20 && c != '\n') || c >= 0x7f {
			return false
		}
	}
	return true
}

// lineReader yields the lines with content of a text one at a time, as contentLines cuts them.
type lineReader struct {
	rest string
	cur  contentLine
	ok   bool // cur is a line; false once the text is read
}

func (r *lineReader) next() {
	for r.rest != "" {
		var l string
		l, r.rest, _ = strings.Cut(r.rest, "\n")
		text := strings.TrimLeft(l, " ")
		indent := len(l) - len(text)
		if text = strings.TrimRight(text, " "); text == "" || text[0] == '#' {
			continue
		}
		r.cur, r.ok = contentLine{indent: indent, text: text}, true
		return
	}
	r.ok = false
}

// quickParser reads the entries of a metadata block into fields. They are its own (a pointer to
// the caller's would make the compiler move them to the heap) and copied out at the end.
type quickParser struct {
	lines  lineReader
	indent int
	fields quickFields
}

// quickFields are the entries of a metadata block, a handful, so a fixed array searched in turn
// rather than a map: the string fields of metaField, labels and annotations, each at most once.
type quickFields struct {
	n int
	f [7]quickField
}

// quickField is one entry of the block: a string, or the JSON of a map of strings.
type quickField struct {
	key, str string
	mapJSON  []byte // nil for a string
}

func (q *quickFields) has(key string) bool {
	return slices.ContainsFunc(q.f[:q.n], func(f quickField) bool { return f.key == key })
}

func (q *quickFields) add(f quickField) bool {
	if q.n == len(q.f) {
		return false
	}
	q.f[q.n] = f
	q.n++
	return true
}

// entry reads one "key: value" line, or a map key and the lines below it.
func (q *quickParser) entry(meta *metav1.ObjectMeta) bool {
	l := q.lines.cur
	key, value, ok := splitKey(l.text)
	if !ok || q.fields.has(key) || l.indent != q.indent || isSeqLine(l.text) {
		return false
	}
	q.lines.next()
	if field := metaField(meta, key); field != nil {
		s, ok := quickString(value)
		*field = s
		return ok && q.fields.add(quickField{key: key, str: s})
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
	return ok && q.fields.add(quickField{key: key, mapJSON: js})
}

// stringMap reads the "k: v" lines below a map key, all strings at one indentation, and their
// JSON (keys sorted).
func (q *quickParser) stringMap() (map[string]string, []byte, bool) {
	m := map[string]string{}
	var keys []string
	indent := q.lines.cur.indent
	for q.lines.ok && q.lines.cur.indent > q.indent {
		l := q.lines.cur
		k, v, ok := splitKey(l.text)
		if _, dup := m[k]; !ok || dup || l.indent != indent || isSeqLine(l.text) {
			return nil, nil, false
		}
		s, ok := quickString(v)
		if !ok {
			return nil, nil, false
		}
		m[k] = s
		keys = append(keys, k)
		q.lines.next()
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

// sort orders the entries by key, as JSON writes them; a handful, so by insertion.
func (q *quickFields) sort() {
	for i := 1; i < q.n; i++ {
		for j := i; j > 0 && q.f[j].key < q.f[j-1].key; j-- {
			q.f[j], q.f[j-1] = q.f[j-1], q.f[j]
		}
	}
}

// jsonLen is the length of what appendJSON writes.
func (q *quickFields) jsonLen() int {
	n := 2 + max(0, q.n-1) // braces and commas
	for _, f := range q.f[:q.n] {
		n += jsonStringLen(f.key) + 1
		if f.mapJSON != nil {
			n += len(f.mapJSON)
		} else {
			n += jsonStringLen(f.str)
		}
	}
	return n
}

// appendJSON writes the block's value as appendJSON writes its tree: {...}, keys sorted (call sort
// first).
func (q *quickFields) appendJSON(js []byte) []byte {
	js = append(js, '{')
	for i, f := range q.f[:q.n] {
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
	return append(js, '}')
}

// quickString reads an inline scalar that is a string (not empty, a number, a word or null): what
// scalar reads as a string, without making it an interface value, which allocates.
func quickString(text string) (string, bool) {
	if text == "" {
		return "", false
	}
	if text[0] == '"' || text[0] == '\'' {
		s, rest, ok := quoted(text)
		return s, ok && rest == ""
	}
	if i := strings.Index(text, " #"); i >= 0 {
		text = strings.TrimRight(text[:i], " ")
	}
	if text == "[]" || text == "{}" || strings.Contains(text, ": ") || strings.HasSuffix(text, ":") {
		return "", false
	}
	return text, plainString(text)
}
