package api

import (
	"encoding/json"
	"fmt"
	"time"
)

// Never is the literal that switches a NillableDuration off.
const Never = "Never"

// NillableDuration is a duration that may also be "Never" (a nil Duration), as karpenter.sh/v1 uses for
// expireAfter and consolidateAfter.
type NillableDuration struct {
	Duration *time.Duration
}

// NewDuration returns a set NillableDuration.
func NewDuration(d time.Duration) NillableDuration { return NillableDuration{Duration: &d} }

// IsNever reports whether the duration is "Never".
func (d NillableDuration) IsNever() bool { return d.Duration == nil }

// String renders the duration as the manifest spells it.
func (d NillableDuration) String() string {
	if d.Duration == nil {
		return Never
	}
	return d.Duration.String()
}

// UnmarshalJSON reads "Never" or a Go duration string such as "720h" or "0s".
func (d *NillableDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration string or %q, got %s", Never, string(b))
	}
	if s == Never {
		d.Duration = nil
		return nil
	}
	parsed, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 30s, 10m, 720h or %q, got %q", Never, s)
	}
	d.Duration = &parsed
	return nil
}

// MarshalJSON writes "Never" or the duration string.
func (d NillableDuration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }
