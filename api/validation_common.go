package api

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// oneOf reports a value outside an enum. An empty value passes: every enum field here is optional or
// defaulted, and Validate must accept what Default would fill in.
func oneOf(p *field.Path, got string, allowed ...string) []*FieldError {
	if got == "" || slices.Contains(allowed, got) {
		return nil
	}
	return []*FieldError{invalid(p, got, "must be one of %s", strings.Join(allowed, ", "))}
}

// inRange reports an optional integer outside [lo, hi].
func inRange[T int32 | int64 | int](p *field.Path, v *T, lo, hi T) []*FieldError {
	if v == nil || (*v >= lo && *v <= hi) {
		return nil
	}
	return []*FieldError{invalid(p, int64(*v), "must be between %d and %d", lo, hi)}
}

// atLeast reports an optional integer below lo.
func atLeast[T int32 | int64 | int](p *field.Path, v *T, lo T) []*FieldError {
	if v == nil || *v >= lo {
		return nil
	}
	return []*FieldError{invalid(p, int64(*v), "must be at least %d", lo)}
}

// validateName checks metadata.name: required and a DNS-1123 subdomain, as for any cluster object.
// labelValue adds the label-value rules for names that become label values (NodePool names do, as
// karpenter.sh/nodepool).
func validateName(name string, labelValue bool) []*FieldError {
	p := field.NewPath("metadata", "name")
	if name == "" {
		return []*FieldError{required(p, "every object needs a name")}
	}
	var errs []*FieldError
	for _, msg := range content.IsDNS1123Subdomain(name) {
		errs = append(errs, invalid(p, name, "%s", msg))
	}
	if labelValue && len(errs) == 0 {
		for _, msg := range content.IsLabelValue(name) {
			errs = append(errs, invalid(p, name, "the name is used as a label value: %s", msg))
		}
	}
	return errs
}

// validateNillableDuration checks a duration a Go caller may have built: the CRD pattern only admits
// non-negative whole seconds.
func validateNillableDuration(p *field.Path, d NillableDuration) []*FieldError {
	if d.Duration == nil {
		return nil
	}
	return validateWholeSeconds(p, *d.Duration)
}

// validateOptionalDuration checks an optional metav1.Duration with the pattern ^([0-9]+(s|m|h))+$.
func validateOptionalDuration(p *field.Path, d *metav1.Duration) []*FieldError {
	if d == nil {
		return nil
	}
	return validateWholeSeconds(p, d.Duration)
}

func validateWholeSeconds(p *field.Path, d time.Duration) []*FieldError {
	if d < 0 || d%time.Second != 0 {
		return []*FieldError{invalid(p, d.String(), "must be a non-negative whole number of seconds (s, m, h units)")}
	}
	return nil
}

// quoteAll renders values for messages as "a", "b".
func quoteAll(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(quoted, ", ")
}
