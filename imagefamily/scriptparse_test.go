package imagefamily_test

import (
	"errors"
	"fmt"
	"strings"
)

// script is a scriptless payload read back: the exported variables, and the text around them.
type script struct {
	vars           map[string]string
	header, footer string
}

// parseScript reads a generated script. Between "set -o allexport" and "set +o allexport" every line
// must be NAME=WORD where WORD is made only of single-quoted strings and \' escapes, the one form
// that bash expands literally; anything else (a bare $, ;, backquote or space) fails, because it
// would be shell syntax.
func parseScript(s string) (script, error) {
	const begin, end = "set -o allexport\n", "set +o allexport\n"
	i, j := strings.Index(s, begin), strings.LastIndex(s, end)
	if i < 0 || j < i {
		return script{}, errors.New("no allexport block")
	}
	out := script{vars: map[string]string{}, header: s[:i], footer: s[j:]}
	body := s[i+len(begin) : j]
	for body != "" {
		name, rest, ok := strings.Cut(body, "=")
		if !ok || !isShellName(name) {
			return script{}, fmt.Errorf("bad assignment at %.40q", body)
		}
		value, n, err := readQuotedWord(rest)
		if err != nil {
			return script{}, fmt.Errorf("%s: %w", name, err)
		}
		if _, dup := out.vars[name]; dup {
			return script{}, fmt.Errorf("%s assigned twice", name)
		}
		out.vars[name] = value
		body = rest[n:]
	}
	return out, nil
}

// readQuotedWord reads one word up to its terminating newline and returns its value and length.
func readQuotedWord(s string) (string, int, error) {
	var b strings.Builder
	i := 0
	for i < len(s) && s[i] != '\n' {
		switch {
		case s[i] == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return "", 0, errors.New("unterminated quote")
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 2
		case strings.HasPrefix(s[i:], `\'`):
			b.WriteByte('\'')
			i += 2
		default:
			return "", 0, fmt.Errorf("unquoted %q", s[i])
		}
	}
	if i == len(s) {
		return "", 0, errors.New("missing newline")
	}
	return b.String(), i + 1, nil
}

func isShellName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// parseLabels splits "k=v,k=v".
func parseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	if s == "" {
		return out, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("bad label %q", kv)
		}
		out[k] = v
	}
	return out, nil
}
