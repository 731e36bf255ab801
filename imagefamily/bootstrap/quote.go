package bootstrap

import "strings"

// Quote returns s as one single-quoted shell word. Inside single quotes bash interprets nothing, so
// the only character needing care is the quote itself, written as '\” (close, escaped quote,
// reopen). The result expands to exactly s for any s without a NUL byte, which no shell variable can
// hold; such input is rejected.
func Quote(field, s string) (string, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", invalid(field, nil, "contains a NUL byte, which a shell variable cannot hold")
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'", nil
}
