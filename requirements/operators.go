package requirements

import (
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// Gte and Lte are Karpenter's inclusive integer operators (NodeSelectorOpGte/Lte in karpenter.sh/v1).
// corev1 only has the exclusive Gt and Lt; the algebra stores every bound in the inclusive form.
const (
	Gte corev1.NodeSelectorOperator = "Gte"
	Lte corev1.NodeSelectorOperator = "Lte"
)

// boundFor turns an integer operator and its single value into an inclusive bound. ok is false when
// the requirement can match nothing: the operand is missing, repeated or not a base-10 int64 (the
// Kubernetes API rejects such operands, so treating them as unsatisfiable is the conservative
// reading), or the bound lies beyond the int64 range (Gt MaxInt64, Lt MinInt64).
func boundFor(op corev1.NodeSelectorOperator, values []string) (bound int64, ok bool) {
	if len(values) != 1 {
		return 0, false
	}
	n, err := strconv.ParseInt(values[0], 10, 64)
	if err != nil {
		return 0, false
	}
	switch op {
	case corev1.NodeSelectorOpGt:
		if n == math.MaxInt64 {
			return 0, false
		}
		return n + 1, true
	case corev1.NodeSelectorOpLt:
		if n == math.MinInt64 {
			return 0, false
		}
		return n - 1, true
	default: // Gte, Lte
		return n, true
	}
}

// isLowerBound reports whether op constrains a value from below.
func isLowerBound(op corev1.NodeSelectorOperator) bool {
	return op == corev1.NodeSelectorOpGt || op == Gte
}

// isBoundOperator reports whether op is one of the four integer operators.
func isBoundOperator(op corev1.NodeSelectorOperator) bool {
	switch op {
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, Gte, Lte:
		return true
	}
	return false
}

// withinBounds reports whether value is an integer inside the inclusive range [gte, lte]; a nil bound
// is open. With no bounds every value passes; with any bound a non-integer value fails, as it does in
// Kubernetes node affinity, which parses label values the same way (strconv.ParseInt, base 10).
func withinBounds(value string, gte, lte *int64) bool {
	if gte == nil && lte == nil {
		return true
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return false
	}
	return (gte == nil || n >= *gte) && (lte == nil || n <= *lte)
}

// emptyRange reports whether the inclusive range [gte, lte] holds no integer.
func emptyRange(gte, lte *int64) bool {
	return gte != nil && lte != nil && *gte > *lte
}

// maxBound and minBound pick the tighter of two bounds; nil is open. They return one of their
// arguments rather than a new pointer, which is safe because bounds are never written after
// construction.
func maxBound(a, b *int64) *int64 {
	if a == nil || (b != nil && *b > *a) {
		return b
	}
	return a
}

func minBound(a, b *int64) *int64 {
	if a == nil || (b != nil && *b < *a) {
		return b
	}
	return a
}

// maxMinValues is the larger of two minValues; nil means unset.
func maxMinValues(a, b *int) *int {
	if a == nil || (b != nil && *b > *a) {
		return b
	}
	return a
}
