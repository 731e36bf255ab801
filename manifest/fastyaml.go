package manifest

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// fastYAMLToJSON converts the plain block-style subset of YAML that generated manifests and
// `kubectl get -o yaml` use (nested mappings and sequences, plain and simply quoted scalars, []
// and {}, comments) straight to JSON. It reports false for anything else (anchors, tags, flow
// collections with content, block and multi-line scalars, escapes, floats, YAML 1.1 words such as
// "on" as keys, duplicate keys, tabs, CR, non-ASCII, ...), and the caller then takes the full
// sigs.k8s.io/yaml path, which also words every error. Where it reports true its JSON is the same
// bytes sigs.k8s.io/yaml.YAMLToJSONStrict gives (FuzzFastYAML checks), so the choice is invisible.
//
// Why: sigs.k8s.io/yaml parses into interface values with yaml.v2, converts them and marshals;
// for 10,000 Pods that was over half of `napkit plan`'s CPU, several times the solve.
//
// It also returns the converted tree, from which the caller reads the header.
func fastYAMLToJSON(data []byte) ([]byte, map[string]any, bool) {
	m, ok := fastYAMLTree(data)
	if !ok {
		return nil, nil, false
	}
	return appendJSON(make([]byte, 0, len(data)), m), m, true
}

// fastYAMLTree is fastYAMLToJSON's tree alone.
func fastYAMLTree(data []byte) (map[string]any, bool) {
	lines, ok := contentLines(data)
	if !ok || len(lines) == 0 {
		return nil, false
	}
	p := &yamlParser{lines: lines}
	v, ok := p.node(lines[0].indent)
	if !ok || p.i != len(lines) {
		return nil, false
	}
	m, isMap := v.(map[string]any)
	return m, isMap
}

// appendJSON writes a converted tree as encoding/json.Marshal does (keys sorted, <, > and & escaped
// as \u003c, \u003e and \u0026), without its reflection: the tree holds only maps, slices,
// strings of printable ASCII, int64, bool and nil.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSON(b, v[k])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, item := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, item)
		}
		return append(b, ']')
	case string:
		return appendJSONString(b, v)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case bool:
		return strconv.AppendBool(b, v)
	}
	return append(b, "null"...)
}

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := range len(s) {
		switch c := s[i]; c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '<', '>', '&':
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// contentLine is a line with content: its indentation and its text without it, trailing spaces cut.
type contentLine struct {
	indent int
	text   string
}

// contentLines cuts a document into lines with content, skipping blank and comment lines. It refuses
// bytes outside printable ASCII and newline.
func contentLines(data []byte) ([]contentLine, bool) {
	for _, c := range data {
		if (c < 0x20 && c != '\n') || c >= 0x7f {
			return nil, false
		}
	}
	lines := make([]contentLine, 0, bytes.Count(data, []byte{'\n'})+1) // one allocation, not one per doubling
	for rest := string(data); rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		text := strings.TrimLeft(l, " ")
		text = strings.TrimRight(text, " ")
		if text == "" || text[0] == '#' {
			continue
		}
		lines = append(lines, contentLine{indent: len(l) - len(strings.TrimLeft(l, " ")), text: text})
	}
	return lines, true
}

type yamlParser struct {
	lines []contentLine
	i     int
}

// node reads the node starting at the current line, whose indentation is indent.
func (p *yamlParser) node(indent int) (any, bool) {
	l := p.lines[p.i]
	if isSeqLine(l.text) {
		return p.sequence(indent)
	}
	if _, _, ok := splitKey(l.text); ok {
		return p.mapping(indent)
	}
	p.i++
	return scalar(l.text)
}

func isSeqLine(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

// mapping reads "key: value" lines at indent; a deeper line is a multi-line scalar or an error,
// which the full parser words.
func (p *yamlParser) mapping(indent int) (any, bool) {
	m := map[string]any{}
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.indent < indent {
			break
		}
		if l.indent > indent {
			return nil, false
		}
		if isSeqLine(l.text) {
			break
		}
		key, value, ok := splitKey(l.text)
		if !ok {
			return nil, false
		}
		if _, dup := m[key]; dup {
			return nil, false
		}
		p.i++
		v, ok := p.value(indent, value)
		if !ok {
			return nil, false
		}
		m[key] = v
	}
	return m, true
}

// value reads a key's value: inline, or the block below it (a sequence may sit at the key's own
// indentation, as kubectl prints it), or null.
func (p *yamlParser) value(indent int, inline string) (any, bool) {
	if inline != "" {
		return scalar(inline)
	}
	if p.i == len(p.lines) {
		return nil, true
	}
	next := p.lines[p.i]
	switch {
	case next.indent > indent:
		return p.node(next.indent)
	case next.indent == indent && isSeqLine(next.text):
		return p.sequence(indent)
	}
	return nil, true
}

// sequence reads "- item" lines at indent. An item's content continues at the column after "- ",
// so the line is rewritten to start there.
func (p *yamlParser) sequence(indent int) (any, bool) {
	items := []any{}
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.indent < indent {
			break
		}
		if l.indent > indent {
			return nil, false
		}
		if !isSeqLine(l.text) {
			break
		}
		if l.text == "-" { // the item is the block below, or null
			p.i++
			var v any
			if p.i < len(p.lines) && p.lines[p.i].indent > indent {
				var ok bool
				if v, ok = p.node(p.lines[p.i].indent); !ok {
					return nil, false
				}
			}
			items = append(items, v)
			continue
		}
		rest := strings.TrimLeft(l.text[1:], " ")
		p.lines[p.i] = contentLine{indent: indent + len(l.text) - len(rest), text: rest}
		v, ok := p.node(p.lines[p.i].indent)
		if !ok {
			return nil, false
		}
		items = append(items, v)
	}
	return items, true
}

// maxKey bounds a key's text: YAML allows an implicit key of at most 1024 characters, and the
// longest Kubernetes label key is 317.
const maxKey = 512

// splitKey cuts "key: value" or "key:"; the key must be a plain string or a simply quoted one.
func splitKey(text string) (key, value string, ok bool) {
	if k, _, _ := strings.Cut(text, ": "); len(k) > maxKey {
		return "", "", false
	}
	if text[0] == '"' || text[0] == '\'' {
		k, rest, ok := quoted(text)
		if !ok || (rest != ":" && !strings.HasPrefix(rest, ": ")) {
			return "", "", false
		}
		return k, strings.TrimLeft(rest[1:], " "), true
	}
	i := strings.Index(text, ": ")
	if i < 0 {
		if !strings.HasSuffix(text, ":") {
			return "", "", false
		}
		i = len(text) - 1
	}
	k := text[:i]
	if !plainString(k) || strings.HasSuffix(k, " ") || strings.Contains(k, " #") {
		return "", "", false
	}
	return k, strings.TrimLeft(text[i+1:], " "), true
}

// scalar reads an inline value: quoted, [] or {}, or plain (a comment after it cut).
func scalar(text string) (any, bool) {
	if text[0] == '"' || text[0] == '\'' {
		s, rest, ok := quoted(text)
		return s, ok && rest == ""

	}
	if i := strings.Index(text, " #"); i >= 0 {
		text = strings.TrimRight(text[:i], " ")
	}
	switch text {
	case "[]":
		return []any{}, true
	case "{}":
		return map[string]any{}, true
	}
	if strings.Contains(text, ": ") || strings.HasSuffix(text, ":") {
		return nil, false
	}
	v := plain(text)
	return v, v != errPlain
}

// quoted reads a quoted string at the start of text without escapes and returns what follows it,
// leading spaces cut. A single-quoted string may contain two single quotes for one; a string
// without them is cut from text rather than copied.
func quoted(text string) (s, rest string, ok bool) {
	q := text[0]
	var sb strings.Builder
	copied := false // sb holds the string so far: it had a doubled quote
	for i := 1; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\\' && q == '"':
			return "", "", false
		case c == q && q == '\'' && i+1 < len(text) && text[i+1] == '\'':
			if !copied {
				sb.WriteString(text[1:i])
				copied = true
			}
			sb.WriteByte('\'')
			i++
		case c == q:
			if !copied {
				return text[1:i], strings.TrimLeft(text[i+1:], " "), true
			}
			return sb.String(), strings.TrimLeft(text[i+1:], " "), true
		case copied:
			sb.WriteByte(c)
		}
	}
	return "", "", false
}

// errPlain marks a plain scalar outside the subset.
var errPlain = &struct{ byte }{}

// yamlWord resolves the plain scalars YAML 1.1 (yaml.v2) reads as booleans or null. A switch, not
// a map: it is asked for every key and plain value, and most are not words.
func yamlWord(s string) (v any, ok bool) {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return true, true
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return false, true
	case "~", "null", "Null", "NULL":
		return nil, true
	}
	return nil, false
}

// plain resolves a plain scalar as yaml.v2 does for the forms it accepts: the YAML 1.1 words, a
// decimal integer, a Kubernetes quantity (a string), or any other text not starting with an
// indicator; errPlain for the rest (floats, octal, hex, timestamps, "<<", ...).
func plain(s string) any {
	if plainString(s) {
		return s
	}
	if v, ok := yamlWord(s); ok {
		return v
	}
	if n, ok := plainInt(s); ok {
		return n
	}
	return errPlain
}

// plainString reports whether plain(s) is s itself, a string, without making it an interface value
// (which allocates): keys and most values are strings.
func plainString(s string) bool {
	if s == "" {
		return false
	}
	if _, word := yamlWord(s); word {
		return false
	}
	switch c := s[0]; {
	case strings.IndexByte("+-.0123456789", c) >= 0:
		return isQuantity(s)
	case strings.IndexByte("[]{},&*!|>%@`\"'#?:<=", c) >= 0:
		return false
	}
	return true
}

// plainInt reads a plain scalar that yaml.v2 reads as an integer: a decimal integer of up to 18
// digits without a leading zero or a plus sign ("-0" is a float to yaml.v2, which JSON writes as 0).
func plainInt(s string) (int64, bool) {
	digits := strings.TrimPrefix(s, "-")
	if len(digits) == 0 || len(digits) > 18 || !allDigits(digits) || (digits != "0" && digits[0] == '0') || s == "-0" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// isQuantity reports a Kubernetes quantity with a unit, such as 100m or 1.5Gi, which yaml.v2 leaves
// a string.
func isQuantity(s string) bool {
	num := strings.TrimRight(s, "kmMGTPi")
	switch s[len(num):] {
	case "m", "k", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti", "Pi":
	default:
		return false
	}
	whole, frac, hasDot := strings.Cut(num, ".")
	return whole != "" && allDigits(whole) && (!hasDot || (frac != "" && allDigits(frac)))
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// jsonStringLen is the length of what appendJSONString writes for s.
func jsonStringLen(s string) int {
	n := len(s) + 2
	for i := range len(s) {
		switch s[i] {
		case '"', '\\':
			n++
		case '<', '>', '&':
			n += 5
		}
	}
	return n
}
