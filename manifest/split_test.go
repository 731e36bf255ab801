package manifest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// splitYAMLByLine is splitYAML as it was before it looked only at lines starting with "---": every
// line in turn. The tests hold splitYAML to it.
func splitYAMLByLine(data []byte) []rawDoc {
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

// TestSplitYAML: documents, their first lines and their lines with content, for the separators
// kubectl accepts and the lines that only look like one.
func TestSplitYAML(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  []rawDoc
	}{
		{"empty", "", []rawDoc{{first: 1, data: []byte{}}}},
		{"one document", "a: 1\n", []rawDoc{{first: 1, line: 1, data: []byte("a: 1\n")}}},
		{"leading separator", "---\na: 1\n", []rawDoc{{first: 1, data: []byte{}}, {first: 2, line: 2, data: []byte("a: 1\n")}}},
		{"comments above", "a: 1\n--- # next\n# about b\n\nb: 2\n", []rawDoc{
			{first: 1, line: 1, data: []byte("a: 1\n")}, {first: 3, line: 5, data: []byte("# about b\n\nb: 2\n")}}},
		{"separator with spaces", "a: 1\n---   \nb: 2", []rawDoc{
			{first: 1, line: 1, data: []byte("a: 1\n")}, {first: 3, line: 3, data: []byte("b: 2")}}},
		{"not separators", "a: |\n  ---x\n--- value\n----\nb: ---\n", []rawDoc{
			{first: 1, line: 1, data: []byte("a: |\n  ---x\n--- value\n----\nb: ---\n")}}},
		{"separator last, no newline", "a: 1\n---", []rawDoc{{first: 1, line: 1, data: []byte("a: 1\n")}, {first: 3, data: []byte{}}}},
		{"empty documents", "---\n---\n\n---\n  # only a comment\n", []rawDoc{
			{first: 1, data: []byte{}}, {first: 2, data: []byte{}}, {first: 3, data: []byte("\n")},
			{first: 5, data: []byte("  # only a comment\n")}}},
		{"CR line ends", "a: 1\r\n---\r\nb: 2\r\n", []rawDoc{
			{first: 1, line: 1, data: []byte("a: 1\r\n")}, {first: 3, line: 3, data: []byte("b: 2\r\n")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, splitYAML([]byte(tc.input)))
			assert.Equal(t, splitYAMLByLine([]byte(tc.input)), splitYAML([]byte(tc.input)))
		})
	}
}

// FuzzSplitYAML: splitYAML cuts every input where the line-by-line way does, with the same lines.
func FuzzSplitYAML(f *testing.F) {
	f.Add([]byte("a: 1\n--- # c\n\n b: 2\n---\n"))
	f.Add([]byte("---\n---x\n--- \t\n  ---\n\n---#\n"))
	f.Add([]byte("\n\n\n---"))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, got := splitYAMLByLine(data), splitYAML(data)
		if len(want) != len(got) {
			t.Fatalf("%q: %d documents, want %d", data, len(got), len(want))
		}
		for i := range want {
			if want[i].first != got[i].first || want[i].line != got[i].line || !bytes.Equal(want[i].data, got[i].data) {
				t.Fatalf("%q document %d: got %+v, want %+v", data, i, got[i], want[i])
			}
		}
	})
}

// BenchmarkSplitYAML cuts 10,000 Pod documents, as the start of every large read does.
func BenchmarkSplitYAML(b *testing.B) {
	var sb strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&sb, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p-%d\n  namespace: default\nspec:\n"+
			"  containers:\n  - name: c\n    image: nginx\n    resources:\n      requests:\n        cpu: 100m\n        memory: 1Gi\n", i)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		splitYAML(data)
	}
}
