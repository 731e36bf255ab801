package bootstrap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Content types of a Payload.
const (
	ContentTypeShell  = "text/x-shellscript"
	ContentTypeJSON   = "application/json"
	ContentTypeBase64 = "text/plain; base64"
)

// Payload is generated bootstrap data that may embed secrets (a script with the bootstrap token, its
// base64 customData). It keeps two renderings: the real one, returned only by Reveal, and a redacted
// one in which every secret is replaced by <redacted>. Printing it with fmt, marshalling it to JSON or
// calling String always shows the redacted rendering.
type Payload struct {
	raw         []byte
	redacted    []byte
	contentType string
}

// newPayload builds a payload; redacted must be raw with its secrets masked (or raw itself when it
// carries none). Both slices are owned by the payload from now on.
func newPayload(contentType string, raw, redacted []byte) Payload {
	return Payload{raw: raw, redacted: redacted, contentType: contentType}
}

// NewPublicPayload wraps bytes that carry no secret (a request body without credentials); both
// renderings are the same.
func NewPublicPayload(contentType string, b []byte) Payload {
	return Payload{raw: bytes.Clone(b), redacted: bytes.Clone(b), contentType: contentType}
}

// Reveal returns a copy of the real bytes, secrets included.
func (p Payload) Reveal() []byte { return bytes.Clone(p.raw) }

// RedactedBytes returns a copy of the bytes with secrets masked.
func (p Payload) RedactedBytes() []byte { return bytes.Clone(p.redacted) }

// ContentType says how to read the bytes (shell script, JSON or base64 text).
func (p Payload) ContentType() string { return p.contentType }

// Len is the length of the real bytes.
func (p Payload) Len() int { return len(p.raw) }

// IsZero reports whether the payload is empty.
func (p Payload) IsZero() bool { return len(p.raw) == 0 }

// Redact returns a payload whose real bytes are the redacted ones, safe to hand to code that might
// call Reveal.
func (p Payload) Redact() Payload {
	return Payload{raw: bytes.Clone(p.redacted), redacted: bytes.Clone(p.redacted), contentType: p.contentType}
}

// String returns the redacted bytes as text.
func (p Payload) String() string { return string(p.redacted) }

// GoString shows the redacted bytes.
func (p Payload) GoString() string { return fmt.Sprintf("bootstrap.Payload(%q)", p.redacted) }

// Format writes the redacted rendering for every verb.
func (p Payload) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, p.GoString())
		return
	}
	_, _ = f.Write(p.redacted)
}

// MarshalJSON writes the redacted rendering: JSON bodies as themselves, anything else as a string.
func (p Payload) MarshalJSON() ([]byte, error) {
	if p.contentType == ContentTypeJSON && json.Valid(p.redacted) {
		return bytes.Clone(p.redacted), nil
	}
	// Flags such as memory.available<100Mi should read as written, so <, > and & are not escaped.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(string(p.redacted)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
