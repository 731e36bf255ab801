package api

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Karpenter's inclusive integer operators, next to the core Gt and Lt.
const (
	NodeSelectorOpGte corev1.NodeSelectorOperator = "Gte"
	NodeSelectorOpLte corev1.NodeSelectorOperator = "Lte"
)

// Limits on requirement lists, from the karpenter.sh/v1 CRD.
const (
	MaxRequirements = 100
	MaxMinValues    = 50
)

var supportedOperators = []string{
	string(corev1.NodeSelectorOpIn), string(corev1.NodeSelectorOpNotIn), string(corev1.NodeSelectorOpExists),
	string(corev1.NodeSelectorOpDoesNotExist), string(corev1.NodeSelectorOpGt), string(corev1.NodeSelectorOpLt),
	string(NodeSelectorOpGte), string(NodeSelectorOpLte),
}

// ValidateRequirement checks one NodePool or NodeClaim requirement found at path (for example
// "spec.template.spec.requirements[2]"): the key, the operator, the number and form of the values,
// well-known values and minValues. The error wraps ErrInvalid.
func ValidateRequirement(path string, r NodeSelectorRequirementWithMinValues) error {
	return toError(validateRequirement(field.NewPath(path), r))
}

// validateRequirements checks a requirement list and each entry.
func validateRequirements(p *field.Path, reqs []NodeSelectorRequirementWithMinValues) []*FieldError {
	var errs []*FieldError
	if len(reqs) > MaxRequirements {
		errs = append(errs, tooMany(p, len(reqs), MaxRequirements))
	}
	for i, r := range reqs {
		errs = append(errs, validateRequirement(p.Index(i), r)...)
	}
	return errs
}

func validateRequirement(p *field.Path, r NodeSelectorRequirementWithMinValues) []*FieldError {
	errs := validateLabelKey(p.Child("key"), r.Key, useRequirement)
	op := string(r.Operator)
	if op == "" {
		return append(errs, required(p.Child("operator"), "one of %s", strings.Join(supportedOperators, ", ")))
	}
	if opErrs := oneOf(p.Child("operator"), op, supportedOperators...); len(opErrs) > 0 {
		return append(errs, opErrs...)
	}
	errs = append(errs, validateValueCount(p, r)...)
	errs = append(errs, validateRequirementValues(p, r)...)
	return append(errs, validateMinValues(p, r)...)
}

// validateValueCount applies the per-operator rules: In needs values, Exists and DoesNotExist take
// none, the numeric operators take exactly one non-negative integer.
func validateValueCount(p *field.Path, r NodeSelectorRequirementWithMinValues) []*FieldError {
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		if len(r.Values) == 0 {
			return []*FieldError{invalid(p, values(r), "operator In needs at least one value")}
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			return []*FieldError{invalid(p, values(r), "operator %s takes no values", r.Operator)}
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, NodeSelectorOpGte, NodeSelectorOpLte:
		if len(r.Values) != 1 || !isNonNegativeInteger(r.Values[0]) {
			return []*FieldError{invalid(p, values(r), "operator %s needs exactly one non-negative integer", r.Operator)}
		}
	}
	return nil
}

// values never returns nil, so an empty list renders as [] rather than null.
func values(r NodeSelectorRequirementWithMinValues) []string {
	if r.Values == nil {
		return []string{}
	}
	return r.Values
}

// isNonNegativeInteger accepts decimal digits that fit an int64: no sign, no spaces.
func isNonNegativeInteger(s string) bool {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return false
	}
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// validateRequirementValues checks each value's syntax and, for In, that it is one a well-known key
// can take. NotIn may name anything: excluding an impossible value is harmless.
func validateRequirementValues(p *field.Path, r NodeSelectorRequirementWithMinValues) []*FieldError {
	var errs []*FieldError
	for i, v := range r.Values {
		key := r.Key
		if r.Operator != corev1.NodeSelectorOpIn {
			key = "" // only the syntax applies
		}
		errs = append(errs, validateLabelValue(p.Child("values").Index(i), key, v)...)
	}
	return errs
}

// validateMinValues checks minValues is 1-50 and, for In, no more than the values offered.
func validateMinValues(p *field.Path, r NodeSelectorRequirementWithMinValues) []*FieldError {
	if r.MinValues == nil {
		return nil
	}
	mp := p.Child("minValues")
	if errs := inRange(mp, r.MinValues, 1, MaxMinValues); len(errs) > 0 {
		return errs
	}
	if r.Operator == corev1.NodeSelectorOpIn && *r.MinValues > len(r.Values) {
		return []*FieldError{invalid(mp, *r.MinValues, "cannot exceed the %d values listed", len(r.Values))}
	}
	return nil
}
