package api

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"time"
)

// Never is the literal that switches a NillableDuration off.
const Never = "Never"

// durationPattern is the CRD pattern for karpenter.sh/v1 durations: whole numbers of s, m or h, so
// "90s" and "1h30m" pass while "1.5h", "100ms", "0" and "-1h" do not.
var durationPattern = regexp.MustCompile(`^([0-9]+(s|m|h))+$`)

// NillableDuration is a duration that may also be "Never" (a nil Duration), as karpenter.sh/v1 uses for
// expireAfter and consolidateAfter.
//
// The zero value is both "Never" (IsNever reports true, as it always has) and "absent" (IsSet reports
// false): Default tells the two apart so that a missing expireAfter becomes 720h while an explicit
// "Never" stays Never.
type NillableDuration struct {
	Duration *time.Duration
	// set records that a manifest named the field, even as "Never".
	set bool
}

// NewDuration returns a set NillableDuration.
func NewDuration(d time.Duration) NillableDuration { return NillableDuration{Duration: &d, set: true} }

// NeverDuration returns an explicit "Never", which Default leaves alone.
func NeverDuration() NillableDuration { return NillableDuration{set: true} }

// IsNever reports whether the duration is "Never".
func (d NillableDuration) IsNever() bool { return d.Duration == nil }

// IsSet reports whether the duration was given, as a duration or as "Never". A Duration assigned
// directly in Go counts as given.
func (d NillableDuration) IsSet() bool { return d.set || d.Duration != nil }

// IsZero reports an absent duration, so that `omitzero` leaves it out of JSON instead of writing a
// "Never" the manifest never said.
func (d NillableDuration) IsZero() bool { return !d.IsSet() }

// String renders the duration as the manifest spells it.
func (d NillableDuration) String() string {
	if d.Duration == nil {
		return Never
	}
	return d.Duration.String()
}

// UnmarshalJSON reads "Never" or a duration in the CRD's format, such as "720h", "1h30m" or "0s". JSON
// null leaves the duration absent.
//
// Errors are *json.UnmarshalTypeError because the JSON decoders add the field path to that type only.
func (d *NillableDuration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return durationError(string(b))
	}
	if s == Never {
		*d = NeverDuration()
		return nil
	}
	if !durationPattern.MatchString(s) {
		return durationError(fmt.Sprintf("%q", s))
	}
	parsed, err := time.ParseDuration(s)
	if err != nil {
		return durationError(fmt.Sprintf("%q", s))
	}
	*d = NewDuration(parsed)
	return nil
}

func durationError(got string) error {
	return &json.UnmarshalTypeError{
		Value: fmt.Sprintf("%s (want whole s, m or h units such as 30s, 10m, 1h30m, or %q)", got, Never),
		Type:  reflect.TypeFor[NillableDuration](),
	}
}

// MarshalJSON writes "Never" or the duration string.
func (d NillableDuration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }
