package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// rawDoc is one document of the input before conversion: YAML text or a JSON value, and the line it
// starts on.
type rawDoc struct {
	line  int // first line with content
	first int // first line of data, which YAML parser errors count from
	data  []byte
	json  bool
}

// splitDocuments cuts the input into documents. Input that parses as a stream of JSON values is
// JSON (a top-level array contributes its elements); anything else is YAML separated by "---" lines.
func splitDocuments(data []byte) []rawDoc {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		if docs, err := splitJSON(data); err == nil {
			return docs
		}
		// Not JSON after all: YAML flow style also starts with { or [.
	}
	return splitYAML(data)
}

// splitYAML cuts at lines that start with "---" followed by nothing but spaces or a comment, the
// rule kubectl follows; "--- value" on one line stays inside the document. A document's line is its
// first line with content, so that positions point at the object rather than at comments above it.
func splitYAML(data []byte) []rawDoc {
	var docs []rawDoc
	cur, start := rawDoc{first: 1}, 0
	line := 0
	for off := 0; off < len(data); {
		end := off + lineLen(data[off:])
		l := data[off:end]
		line++
		switch {
		case isSeparator(l):
			cur.data = data[start:off]
			docs = append(docs, cur)
			cur, start = rawDoc{first: line + 1}, end
		case cur.line == 0 && hasContent(l):
			cur.line = line
		}
		off = end
	}
	cur.data = data[start:]
	return append(docs, cur)
}

// hasContent reports a line that is neither blank nor a comment.
func hasContent(line []byte) bool {
	trimmed := bytes.TrimSpace(line)
	return len(trimmed) > 0 && trimmed[0] != '#'
}

func isSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	if !ok {
		return false
	}
	rest = bytes.TrimSpace(rest)
	return len(rest) == 0 || rest[0] == '#'
}

// splitJSON reads consecutive JSON values; an array's elements become separate documents.
func splitJSON(data []byte) ([]rawDoc, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []rawDoc
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		line := lineAt(data, int(dec.InputOffset())-len(raw))
		docs = append(docs, jsonValues(raw, line)...)
	}
}

// jsonValues returns the elements of an array, or the value itself.
func jsonValues(raw json.RawMessage, line int) []rawDoc {
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return []rawDoc{{line: line, first: line, data: raw, json: true}}
	}
	docs := make([]rawDoc, 0, len(items))
	for _, item := range items {
		docs = append(docs, rawDoc{line: line, first: line, data: item, json: true})
	}
	return docs
}

// lineAt returns the 1-based line of a byte offset.
func lineAt(data []byte, offset int) int {
	offset = max(0, min(offset, len(data)))
	return bytes.Count(data[:offset], []byte("\n")) + 1
}
