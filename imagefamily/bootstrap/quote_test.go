package bootstrap

import (
	"errors"
	"strings"
	"testing"
)

// unquote reads one shell word made of single-quoted strings and \' escapes, the only forms Quote
// writes, and fails on anything else (an unquoted character could be shell syntax).
func unquote(word string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(word); {
		switch {
		case word[i] == '\'':
			end := strings.IndexByte(word[i+1:], '\'')
			if end < 0 {
				return "", errors.New("unterminated quote")
			}
			b.WriteString(word[i+1 : i+1+end])
			i += end + 2
		case strings.HasPrefix(word[i:], `\'`):
			b.WriteByte('\'')
			i += 2
		default:
			return "", errors.New("unquoted character " + string(word[i]))
		}
	}
	return b.String(), nil
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "''"},
		{"plain", "'plain'"},
		{"it's", `'it'\''s'`},
		{"$(reboot)`id`;|&\n\"\\", "'$(reboot)`id`;|&\n\"\\'"},
	}
	for _, tt := range tests {
		got, err := Quote("f", tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Quote(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := Quote("f", "a\x00b"); !errors.Is(err, ErrInvalid) {
		t.Errorf("Quote with NUL: error = %v, want ErrInvalid", err)
	}
}

func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "'", "''", `\'`, "a'b'c", "$(x)", "\n", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Quote("f", s)
		if err != nil {
			if !strings.Contains(s, "\x00") || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Quote(%q) error = %v", s, err)
			}
			return
		}
		got, err := unquote(q)
		if err != nil || got != s {
			t.Fatalf("unquote(Quote(%q)) = %q, %v", s, got, err)
		}
	})
}
