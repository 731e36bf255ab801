package api

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// FuzzValidateRequirement checks that ValidateRequirement never panics, that every error wraps
// ErrInvalid and starts with the path it was given, and that whatever it accepts really follows the
// operator rules.
func FuzzValidateRequirement(f *testing.F) {
	f.Add("karpenter.sh/capacity-type", "In", "spot,on-demand", 0)
	f.Add("karpenter.azure.com/sku-cpu", "Gt", "4", 0)
	f.Add("karpenter.azure.com/sku-cpu", "Lte", "-1", 0)
	f.Add("kubernetes.io/hostname", "Exists", "", 0)
	f.Add("karpenter.azure.com/sku-family", "In", "D,E", 3)
	f.Add("beta.kubernetes.io/arch", "NotIn", "a b", 51)
	f.Add("", "", ",", -1)
	f.Fuzz(func(t *testing.T, key, op, joined string, minValues int) {
		r := NodeSelectorRequirementWithMinValues{Key: key, Operator: corev1.NodeSelectorOperator(op)}
		if joined != "" {
			r.Values = strings.Split(joined, ",")
		}
		if minValues != 0 {
			r.MinValues = &minValues
		}
		err := ValidateRequirement("spec.requirements[0]", r)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "spec.requirements[0]") {
				t.Fatalf("error does not start with the field path: %v", err)
			}
			return
		}
		checkAccepted(t, r)
	})
}

// checkAccepted restates the rules a valid requirement must satisfy.
func checkAccepted(t *testing.T, r NodeSelectorRequirementWithMinValues) {
	t.Helper()
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		if len(r.Values) == 0 {
			t.Fatalf("accepted In without values: %+v", r)
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) != 0 {
			t.Fatalf("accepted %s with values: %+v", r.Operator, r)
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, NodeSelectorOpGte, NodeSelectorOpLte:
		if len(r.Values) != 1 || strings.Trim(r.Values[0], "0123456789") != "" || r.Values[0] == "" {
			t.Fatalf("accepted %s without one non-negative integer: %+v", r.Operator, r)
		}
	case corev1.NodeSelectorOpNotIn:
	default:
		t.Fatalf("accepted operator %q", r.Operator)
	}
	if NormalizeLabelKey(r.Key) == LabelHostname || r.Key == LabelSKUHyperVGeneration || r.Key == "" {
		t.Fatalf("accepted restricted or empty key %q", r.Key)
	}
	if r.MinValues != nil && (*r.MinValues < 1 || *r.MinValues > MaxMinValues) {
		t.Fatalf("accepted minValues %d", *r.MinValues)
	}
}
