package pricing

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"
)

// Sentinel errors. Test for them with errors.Is; the typed errors below wrap them where it applies.
var (
	// ErrMalformed means a price table or an API page is not in the expected shape. Every error from
	// ParseCSV about the input's content wraps it, as does a page of the Retail Prices API that is not
	// valid JSON.
	ErrMalformed = errors.New("malformed price data")

	// ErrInvalidPrice means a price is zero, negative, NaN or infinite. Azure lists placeholder meters
	// at 0.00, and a zero would make a SKU look free to every cost comparison, so no such value is kept.
	ErrInvalidPrice = errors.New("price must be a finite number greater than zero")

	// ErrInvalidRegion means a region name is not an ARM region name (lower-case letters and digits,
	// as in "eastus2"). Region names go into an OData filter, so nothing else is let through.
	ErrInvalidRegion = errors.New("invalid region name")

	// ErrNoPrices means the Retail Prices API answered successfully but listed no usable price for a
	// region. Provider.Refresh keeps the previous prices for that region and reports this error.
	ErrNoPrices = errors.New("no prices in answer")

	// ErrTooManyPages means a region's answer ran past ClientOptions.MaxPages, which guards against a
	// server that keeps returning a NextPageLink.
	ErrTooManyPages = errors.New("too many pages")

	// ErrNoClient means Provider.Refresh was called on a provider built without a Client.
	ErrNoClient = errors.New("no price client configured")
)

// ParseError reports where a price table is malformed. It wraps ErrMalformed and its cause, so
// errors.Is(err, ErrMalformed) holds for every ParseError, and errors.Is(err, ErrInvalidPrice) for a
// rejected price.
type ParseError struct {
	Line   int    // 1-based line number in the input
	Column string // column name from the header; empty when the whole row or header is wrong
	Value  string // the offending text, shortened
	Err    error  // the cause
}

func (e *ParseError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pricing: line %d", e.Line)
	if e.Column != "" {
		fmt.Fprintf(&b, ", column %s", e.Column)
	}
	if e.Value != "" {
		fmt.Fprintf(&b, ", value %q", e.Value)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

// Unwrap returns ErrMalformed and the cause, for errors.Is and errors.As.
func (e *ParseError) Unwrap() []error { return []error{ErrMalformed, e.Err} }

// StatusError is returned by Client.Fetch when the Retail Prices API answers with a status other
// than 200 OK. Excerpt holds at most the first maxExcerpt printable characters of the body: enough
// to tell a throttling message from an outage, too little to copy a large body into logs.
type StatusError struct {
	Region     string
	Page       int // 1-based page number of the request that failed
	StatusCode int
	Excerpt    string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("pricing: region %s page %d: HTTP %d %s", e.Region, e.Page, e.StatusCode,
		http.StatusText(e.StatusCode))
	if e.Excerpt != "" {
		msg += ": " + e.Excerpt
	}
	return msg
}

// maxExcerpt bounds StatusError.Excerpt, in characters.
const maxExcerpt = 120

// excerpt turns the start of a response body into one short printable line.
func excerpt(body []byte) string {
	fields := strings.FieldsFunc(string(body), func(r rune) bool {
		return unicode.IsSpace(r) || !unicode.IsPrint(r)
	})
	s := strings.Join(fields, " ")
	if r := []rune(s); len(r) > maxExcerpt {
		s = string(r[:maxExcerpt]) + "..."
	}
	return s
}
