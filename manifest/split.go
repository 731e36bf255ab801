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
//
// It looks only at lines that start with "---" (bytes.Index finds them) and counts the lines
// between them with bytes.Count, instead of looking at every line: for 10,000 Pods (130,000
// lines) this step, which runs before the documents are converted in parallel, took 2.3 ms.
func splitYAML(data []byte) []rawDoc {
	// Room for documents of 128 bytes: generated Pods are about 190. Counting the separators first
	// would cost a second pass; what is reserved and not used is never touched.
	docs := make([]rawDoc, 0, len(data)/128+1)
	start, first := 0, 1  // the current document's offset and first line
	line, counted := 1, 0 // the line number at offset counted
	for off := 0; off < len(data); {
		p := dashesAt(data, off)
		if p < 0 {
			break
		}
		line += bytes.Count(data[counted:p], []byte{'\n'})
		counted = p
		end := p + lineLen(data[p:])
		if isSeparator(data[p:end]) {
			docs = append(docs, rawDoc{first: first, line: firstContent(data[start:p], first), data: data[start:p]})
			start, first = end, line+1
		}
		off = end
	}
	return append(docs, rawDoc{first: first, line: firstContent(data[start:], first), data: data[start:]})
}

// dashesAt is the offset of the first line at or after off (a line's start) that starts with
// "---", or -1. It looks for "---" and then at the byte before it: a newline is in every line and
// '-' in few, so searching for "\n---" would stop at every line.
func dashesAt(data []byte, off int) int {
	for off < len(data) {
		i := bytes.Index(data[off:], []byte("---"))
		if i < 0 {
			return -1
		}
		if p := off + i; p == 0 || data[p-1] == '\n' {
			return p
		}
		off += i + 1
	}
	return -1
}

// firstContent is the number of the first line with content of doc, whose first line is first; 0
// when it has none.
func firstContent(doc []byte, first int) int {
	for off, line := 0, first; off < len(doc); line++ {
		end := off + lineLen(doc[off:])
		if hasContent(doc[off:end]) {
			return line
		}
		off = end
	}
	return 0
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
