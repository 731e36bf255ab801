package requirements

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// fuzzOperators are the operators the fuzzer picks from by index, including one Kubernetes does not
// define.
var fuzzOperators = []corev1.NodeSelectorOperator{in, notIn, exists, doesNotExist, gt, lt, Gte, Lte, "Bogus"}

// fuzzRequirement builds the intersection of two fuzzed requirements, so that compound shapes (a range
// that also excludes values) are exercised as well as single operators.
func fuzzRequirement(op1 uint8, values1 string, op2 uint8, values2 string) (*Requirement, []string) {
	v1, v2 := splitValues(values1), splitValues(values2)
	a := NewRequirement("k", fuzzOperators[int(op1)%len(fuzzOperators)], v1...)
	b := NewRequirement("k", fuzzOperators[int(op2)%len(fuzzOperators)], v2...)
	return a.Intersection(b), append(v1, v2...)
}

func splitValues(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// FuzzIntersection checks the algebra's invariants on arbitrary requirements: no panic; the result
// allows exactly what both operands allow; the operation commutes; Intersects agrees with it; Any
// returns an allowed value; the API form round-trips; intersecting with itself changes nothing.
func FuzzIntersection(f *testing.F) {
	f.Add(uint8(0), "1,5,a", uint8(2), "", uint8(1), "5,b", uint8(6), "2")
	f.Add(uint8(4), "3", uint8(5), "7", uint8(1), "5", uint8(0), "1,5,7,b")
	f.Add(uint8(6), "3", uint8(7), "3", uint8(1), "3", uint8(2), "")
	f.Add(uint8(4), "9223372036854775807", uint8(2), "", uint8(5), "-9223372036854775808", uint8(3), "")
	f.Add(uint8(0), "007,7,+7", uint8(7), "7", uint8(1), "07", uint8(6), "-1")
	f.Add(uint8(1), "", uint8(3), "x", uint8(8), "1", uint8(0), "")
	f.Fuzz(func(t *testing.T, opA1 uint8, valuesA1 string, opA2 uint8, valuesA2 string, opB1 uint8, valuesB1 string, opB2 uint8, valuesB2 string) {
		a, extraA := fuzzRequirement(opA1, valuesA1, opA2, valuesA2)
		b, extraB := fuzzRequirement(opB1, valuesB1, opB2, valuesB2)
		ab, ba := a.Intersection(b), b.Intersection(a)
		samples := append(append(append(extraA, extraB...), a.Any(), b.Any(), ab.Any()), universe...)

		for _, v := range samples {
			both := a.Has(v) && b.Has(v)
			require.Equalf(t, both, ab.Has(v), "%q: (%s) ∧ (%s) = (%s)", v, a, b, ab)
			require.Equalf(t, both, ba.Has(v), "%q: (%s) ∧ (%s) = (%s)", v, b, a, ba)
		}
		require.Truef(t, ab.Equal(ba), "not commutative: %s vs %s", ab, ba)

		intersects := ab.Len() > 0 || (a.AllowsAbsent() && b.AllowsAbsent())
		require.Equalf(t, intersects, a.Intersects(b), "(%s).Intersects(%s), intersection %s", a, b, ab)
		require.Equal(t, intersects, b.Intersects(a))

		if v := ab.Any(); v != "" {
			require.Truef(t, a.Has(v) && b.Has(v), "Any %q of %s not allowed by both", v, ab)
		}
		back := FromAPI(ab.ToAPI())
		require.Truef(t, ab.Equal(back.Get("k")), "round trip %s -> %v -> %s", ab, ab.ToAPI(), back.Get("k"))
		require.Truef(t, a.Equal(a.Intersection(a)), "not idempotent: %s", a)
		assert.NotEmpty(t, ab.String())
	})
}
