package requirements

import (
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

const (
	in           = corev1.NodeSelectorOpIn
	notIn        = corev1.NodeSelectorOpNotIn
	exists       = corev1.NodeSelectorOpExists
	doesNotExist = corev1.NodeSelectorOpDoesNotExist
	gt           = corev1.NodeSelectorOpGt
	lt           = corev1.NodeSelectorOpLt
)

// universe is the sample of label values membership is checked over: integers on both sides of every
// bound used in the tables, non-integers, a second spelling of an integer and the empty string.
var universe = func() []string {
	u := []string{"a", "b", "", "-1", "007", "99999999999999999999"}
	for i := range 21 {
		u = append(u, strconv.Itoa(i))
	}
	return u
}()

func k(op corev1.NodeSelectorOperator, values ...string) *Requirement {
	return NewRequirement("k", op, values...)
}

// assertMembership checks the defining property of Intersection by brute force: got allows exactly the
// sample values both a and b allow.
func assertMembership(t testing.TB, a, b, got *Requirement, extra ...string) {
	t.Helper()
	for _, v := range append(universe, extra...) {
		assert.Equalf(t, a.Has(v) && b.Has(v), got.Has(v), "value %q: (%s) ∧ (%s) = (%s)", v, a, b, got)
	}
}

// assertIntersectsAgrees checks that the allocation-free Intersects agrees with Intersection, and that
// a shared sample value always implies an intersection.
func assertIntersectsAgrees(t testing.TB, a, b, got *Requirement, extra ...string) {
	t.Helper()
	want := got.Len() > 0 || (a.AllowsAbsent() && b.AllowsAbsent())
	assert.Equalf(t, want, a.Intersects(b), "(%s).Intersects(%s)", a, b)
	for _, v := range append(universe, extra...) {
		if a.Has(v) && b.Has(v) {
			assert.Truef(t, a.Intersects(b), "(%s) and (%s) share %q", a, b, v)
			return
		}
	}
}

// TestIntersectionTruthTable covers every ordered pair of the eight operators. Left and right operands
// differ so that the diagonal is not trivial; each expectation was worked out on the value sets
// (Gt 3 is Gte 4, Lt 7 is Lte 6, Gt 5 is Gte 6, Lt 3 is Lte 2) and is cross-checked by brute force.
func TestIntersectionTruthTable(t *testing.T) {
	left := map[string]*Requirement{
		"In": k(in, "1", "5", "a"), "NotIn": k(notIn, "5", "b"), "Exists": k(exists), "DoesNotExist": k(doesNotExist),
		"Gt": k(gt, "3"), "Lt": k(lt, "7"), "Gte": k(Gte, "5"), "Lte": k(Lte, "5"),
	}
	right := map[string]*Requirement{
		"In": k(in, "5", "7", "b"), "NotIn": k(notIn, "1", "a"), "Exists": k(exists), "DoesNotExist": k(doesNotExist),
		"Gt": k(gt, "5"), "Lt": k(lt, "3"), "Gte": k(Gte, "2"), "Lte": k(Lte, "6"),
	}
	tests := []struct {
		left, right string
		want        string
		wantOp      corev1.NodeSelectorOperator
		intersects  bool
	}{
		{"In", "In", "k In [5]", in, true},
		{"In", "NotIn", "k In [5]", in, true},
		{"In", "Exists", "k In [1 5 a]", in, true},
		{"In", "DoesNotExist", "k DoesNotExist", doesNotExist, false},
		{"In", "Gt", "k DoesNotExist", doesNotExist, false},
		{"In", "Lt", "k In [1]", in, true},
		{"In", "Gte", "k In [5]", in, true},
		{"In", "Lte", "k In [1 5]", in, true},

		{"NotIn", "In", "k In [7]", in, true},
		{"NotIn", "NotIn", "k NotIn [1 5 a b]", notIn, true},
		{"NotIn", "Exists", "k NotIn [5 b]", notIn, true},
		{"NotIn", "DoesNotExist", "k DoesNotExist", doesNotExist, true}, // both negative: an unlabelled node meets both
		{"NotIn", "Gt", "k Gte 6", Gte, true},
		{"NotIn", "Lt", "k Lte 2", Lte, true},
		{"NotIn", "Gte", "k NotIn [5] Gte 2", Gte, true},
		{"NotIn", "Lte", "k NotIn [5] Lte 6", Lte, true},

		{"Exists", "In", "k In [5 7 b]", in, true},
		{"Exists", "NotIn", "k NotIn [1 a]", notIn, true},
		{"Exists", "Exists", "k Exists", exists, true},
		{"Exists", "DoesNotExist", "k DoesNotExist", doesNotExist, false},
		{"Exists", "Gt", "k Gte 6", Gte, true},
		{"Exists", "Lt", "k Lte 2", Lte, true},
		{"Exists", "Gte", "k Gte 2", Gte, true},
		{"Exists", "Lte", "k Lte 6", Lte, true},

		{"DoesNotExist", "In", "k DoesNotExist", doesNotExist, false},
		{"DoesNotExist", "NotIn", "k DoesNotExist", doesNotExist, true},
		{"DoesNotExist", "Exists", "k DoesNotExist", doesNotExist, false},
		{"DoesNotExist", "DoesNotExist", "k DoesNotExist", doesNotExist, true},
		{"DoesNotExist", "Gt", "k DoesNotExist", doesNotExist, false},
		{"DoesNotExist", "Lt", "k DoesNotExist", doesNotExist, false},
		{"DoesNotExist", "Gte", "k DoesNotExist", doesNotExist, false},
		{"DoesNotExist", "Lte", "k DoesNotExist", doesNotExist, false},

		{"Gt", "In", "k In [5 7]", in, true},
		{"Gt", "NotIn", "k Gte 4", Gte, true},
		{"Gt", "Exists", "k Gte 4", Gte, true},
		{"Gt", "DoesNotExist", "k DoesNotExist", doesNotExist, false},
		{"Gt", "Gt", "k Gte 6", Gte, true},
		{"Gt", "Lt", "k DoesNotExist", doesNotExist, false}, // 4 > 2: empty range
		{"Gt", "Gte", "k Gte 4", Gte, true},
		{"Gt", "Lte", "k Gte 4 Lte 6", Gte, true},

		{"Lt", "In", "k In [5]", in, true},
		{"Lt", "NotIn", "k NotIn [1] Lte 6", Lte, true},
		{"Lt", "Exists", "k Lte 6", Lte, true},
		{"Lt", "DoesNotExist", "k DoesNotExist", doesNotExist, false},
		{"Lt", "Gt", "k Gte 6 Lte 6", Gte, true},
		{"Lt", "Lt", "k Lte 2", Lte, true},
		{"Lt", "Gte", "k Gte 2 Lte 6", Gte, true},
		{"Lt", "Lte", "k Lte 6", Lte, true},

		{"Gte", "In", "k In [5 7]", in, true},
		{"Gte", "NotIn", "k Gte 5", Gte, true},
		{"Gte", "Exists", "k Gte 5", Gte, true},
		{"Gte", "DoesNotExist", "k DoesNotExist", doesNotExist, false},
		{"Gte", "Gt", "k Gte 6", Gte, true},
		{"Gte", "Lt", "k DoesNotExist", doesNotExist, false}, // 5 > 2: empty range
		{"Gte", "Gte", "k Gte 5", Gte, true},
		{"Gte", "Lte", "k Gte 5 Lte 6", Gte, true},

		{"Lte", "In", "k In [5]", in, true},
		{"Lte", "NotIn", "k NotIn [1] Lte 5", Lte, true},
		{"Lte", "Exists", "k Lte 5", Lte, true},
		{"Lte", "DoesNotExist", "k DoesNotExist", doesNotExist, false},
		{"Lte", "Gt", "k DoesNotExist", doesNotExist, false}, // 6 > 5: empty range
		{"Lte", "Lt", "k Lte 2", Lte, true},
		{"Lte", "Gte", "k Gte 2 Lte 5", Gte, true},
		{"Lte", "Lte", "k Lte 5", Lte, true},
	}
	require.Len(t, tests, len(left)*len(right), "every ordered operator pair has a row")
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.left+"_"+tt.right, func(t *testing.T) {
			a, b := left[tt.left], right[tt.right]
			require.NotNil(t, a)
			require.NotNil(t, b)
			got := a.Intersection(b)
			assert.Equal(t, tt.want, got.String())
			assert.Equal(t, tt.wantOp, got.Operator())
			assert.Equal(t, tt.intersects, a.Intersects(b), "a.Intersects(b)")
			assert.Equal(t, tt.intersects, b.Intersects(a), "b.Intersects(a)")
			assert.True(t, got.Equal(b.Intersection(a)), "Intersection commutes: %s vs %s", got, b.Intersection(a))
			assertMembership(t, a, b, got)
			assertIntersectsAgrees(t, a, b, got)
		})
		seen[tt.left+"_"+tt.right] = true
	}
	assert.Len(t, seen, len(left)*len(right), "no pair is listed twice")
}

func TestIntersectionEdgeCases(t *testing.T) {
	maxInt := strconv.FormatInt(math.MaxInt64, 10)
	tests := []struct {
		name       string
		a, b       *Requirement
		want       string
		intersects bool
	}{
		{"single point range", k(Gte, "3"), k(Lte, "3"), "k Gte 3 Lte 3", true},
		{"adjacent exclusive bounds", k(gt, "3"), k(lt, "4"), "k DoesNotExist", false},
		{"point range minus its value", k(Gte, "3").Intersection(k(Lte, "3")), k(notIn, "3"), "k NotIn [3] Gte 3 Lte 3", true},
		{"disjoint In sets", k(in, "a"), k(in, "b"), "k DoesNotExist", false},
		{"In minus all of it", k(in, "a", "b"), k(notIn, "b", "a"), "k DoesNotExist", false},
		{"bounds drop non-integers", k(in, "a", "10", "x"), k(Gte, "0"), "k In [10]", true},
		{"bounds compare numbers, not strings", k(in, "9", "10", "100"), k(lt, "50"), "k In [10 9]", true},
		{"leading zeros are numbers", k(in, "007"), k(Lte, "7"), "k In [007]", true},
		{"negative bounds", k(gt, "-5"), k(lt, "-2"), "k Gte -4 Lte -3", true},
		{"Gt MaxInt64 matches nothing", k(gt, maxInt), k(exists), "k DoesNotExist", false},
		{"Gte MaxInt64 is a point", k(Gte, maxInt), k(exists), "k Gte " + maxInt, true},
		{"Lt MinInt64 matches nothing", k(lt, strconv.FormatInt(math.MinInt64, 10)), k(exists), "k DoesNotExist", false},
		{"non-integer Gt matches nothing", k(gt, "four"), k(exists), "k DoesNotExist", false},
		{"overflowing Lt matches nothing", k(lt, "99999999999999999999"), k(exists), "k DoesNotExist", false},
		{"Gt without operand matches nothing", k(gt), k(exists), "k DoesNotExist", false},
		{"Lt with two operands matches nothing", k(lt, "1", "2"), k(exists), "k DoesNotExist", false},
		{"unknown operator matches nothing", k("Near", "1"), k(exists), "k DoesNotExist", false},
		{"In without values is DoesNotExist", k(in), k(notIn, "a"), "k DoesNotExist", true},
		{"NotIn without values is Exists", k(notIn), k(in, "a"), "k In [a]", true},
		{"Exists ignores values", k(exists, "a"), k(in, "b"), "k In [b]", true},
		{"DoesNotExist ignores values", k(doesNotExist, "a"), k(notIn, "b"), "k DoesNotExist", true},
		{"bounded complement vs DoesNotExist conflicts", k(notIn, "1").Intersection(k(Gte, "0")), k(doesNotExist), "k DoesNotExist", false},
		{"empty string is a value", k(in, ""), k(exists), `k In [""]`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.a.Intersection(tt.b)
			assert.Equal(t, tt.want, got.String())
			assert.Equal(t, tt.intersects, tt.a.Intersects(tt.b))
			assert.Equal(t, tt.intersects, tt.b.Intersects(tt.a))
			assert.True(t, got.Equal(tt.b.Intersection(tt.a)))
			assertMembership(t, tt.a, tt.b, got)
			assertIntersectsAgrees(t, tt.a, tt.b, got)
		})
	}
}

func TestIntersectionMinValues(t *testing.T) {
	two, five := 2, 5
	a := NewRequirementWithMinValues("k", in, &two, "a", "b", "c")
	b := NewRequirementWithMinValues("k", in, &five, "b", "c", "d")
	tests := []struct {
		name string
		a, b *Requirement
		want *int
	}{
		{"larger wins", a, b, &five},
		{"larger wins, either order", b, a, &five},
		{"one side unset", a, k(exists), &two},
		{"other side unset", k(exists), b, &five},
		{"both unset", k(exists), k(in, "a"), nil},
		{"kept on an empty range", NewRequirementWithMinValues("k", gt, &two, "5"), k(lt, "3"), &two},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.a.Intersection(tt.b).MinValues)
		})
	}
}

func TestIntersectionLeavesOperandsAlone(t *testing.T) {
	a, b := k(in, "a", "b", "c"), k(notIn, "b")
	aBefore, bBefore := a.String(), b.String()
	got := a.Intersection(b)
	assert.Equal(t, "k In [a c]", got.String())
	assert.Equal(t, aBefore, a.String())
	assert.Equal(t, bBefore, b.String())
}

// TestIntersectionAllocations pins the cost the scheduler pays per narrowing: the result struct, plus
// a value slice only when values are actually removed.
func TestIntersectionAllocations(t *testing.T) {
	zones := k(in, "1", "2", "3")
	tests := []struct {
		name string
		a, b *Requirement
		want float64
	}{
		{"nothing removed shares the slice", zones, k(exists), 1},
		{"subset shares the smaller slice", zones, k(in, "2"), 1},
		{"removal allocates the new slice", zones, k(notIn, "2"), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, testing.AllocsPerRun(100, func() { tt.a.Intersection(tt.b) }))
			assert.Zero(t, testing.AllocsPerRun(100, func() { tt.a.Intersects(tt.b) }), "Intersects allocates nothing")
		})
	}
}

func ExampleRequirement_Intersection() {
	cpu := NewRequirement("karpenter.azure.com/sku-cpu", corev1.NodeSelectorOpGt, "4")
	fmt.Println(cpu)
	fmt.Println(cpu.Intersection(NewRequirement("karpenter.azure.com/sku-cpu", corev1.NodeSelectorOpLt, "16")))
	fmt.Println(cpu.Intersection(NewRequirement("karpenter.azure.com/sku-cpu", corev1.NodeSelectorOpIn, "2", "8", "32")))
	// Output:
	// karpenter.azure.com/sku-cpu Gte 5
	// karpenter.azure.com/sku-cpu Gte 5 Lte 15
	// karpenter.azure.com/sku-cpu In [32 8]
}
