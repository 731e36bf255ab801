package requirements

import (
	"math"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// Requirement is the set of values one label key may take: a sorted value set (In), the complement of
// one (NotIn, Exists), or the empty set (DoesNotExist), optionally narrowed by inclusive integer bounds.
// Only complements carry bounds; a concrete set is filtered by them when it is formed.
//
// A Requirement is immutable: build one with NewRequirement or NewRequirementWithMinValues and treat Key
// and MinValues as read-only. A nil *Requirement is not valid. The zero Requirement matches no value.
type Requirement struct {
	// Key is the label key, normalised by api.NormalizeLabelKey.
	Key string
	// MinValues is the least number of distinct values the launch list must keep for Key; nil if unset.
	MinValues *int

	complement bool     // values lists what is excluded rather than what is allowed
	values     []string // sorted and duplicate-free; shared between requirements, never written
	gte, lte   *int64   // inclusive integer bounds, nil when open; only set on complements

	// one backs values for the single-value In requirement, which is most of what the catalogue
	// builds (one per instance-type label), so that it costs one allocation rather than two.
	one [1]string
}

// NewRequirement returns the requirement "key op values". See NewRequirementWithMinValues.
func NewRequirement(key string, op corev1.NodeSelectorOperator, values ...string) *Requirement {
	return NewRequirementWithMinValues(key, op, nil, values...)
}

// NewRequirementWithMinValues returns the requirement "key op values" with minValues. The key is
// normalised (deprecated aliases become their stable key), values are copied, sorted and de-duplicated.
// Gt N is stored as Gte N+1 and Lt N as Lte N-1. Exists and DoesNotExist ignore values. A requirement
// that can never be met (an integer operator without exactly one base-10 int64 operand, Gt MaxInt64,
// Lt MinInt64, or an operator Kubernetes does not define) matches nothing; it never panics.
func NewRequirementWithMinValues(key string, op corev1.NodeSelectorOperator, minValues *int, values ...string) *Requirement {
	r := &Requirement{Key: api.NormalizeLabelKey(key), MinValues: minValues}
	switch {
	case op == corev1.NodeSelectorOpIn:
		r.setValues(values)
	case op == corev1.NodeSelectorOpNotIn:
		r.complement = true
		r.setValues(values)
	case op == corev1.NodeSelectorOpExists:
		r.complement = true
	case isBoundOperator(op):
		r.setBound(op, values)
	}
	return r
}

func (r *Requirement) setValues(values []string) {
	switch len(values) {
	case 0:
	case 1:
		r.one[0] = values[0]
		r.values = r.one[:]
	default:
		r.values = sortedSet(values)
	}
}

// setBound makes r the complement of the empty set with one bound, or leaves it matching nothing when
// the bound cannot be met.
func (r *Requirement) setBound(op corev1.NodeSelectorOperator, values []string) {
	bound, ok := boundFor(op, values)
	if !ok {
		return
	}
	r.complement = true
	if isLowerBound(op) {
		r.gte = &bound
	} else {
		r.lte = &bound
	}
}

// Operator names the requirement's shape: In for a non-empty set, DoesNotExist for the empty set, and
// for a complement Gte or Lte when it has a bound (the lower one first), else NotIn when it excludes
// values, else Exists. A bounded complement reports its bound even when it also excludes values,
// because a bound, unlike NotIn, is not satisfied by a node without the label; Values and Bounds give
// the rest.
func (r *Requirement) Operator() corev1.NodeSelectorOperator {
	switch {
	case !r.complement && len(r.values) > 0:
		return corev1.NodeSelectorOpIn
	case !r.complement:
		return corev1.NodeSelectorOpDoesNotExist
	case r.gte != nil:
		return Gte
	case r.lte != nil:
		return Lte
	case len(r.values) > 0:
		return corev1.NodeSelectorOpNotIn
	default:
		return corev1.NodeSelectorOpExists
	}
}

// Values returns a sorted copy of the values: the allowed ones for In, the excluded ones for a
// complement (NotIn, or a bounded complement that also excludes values), none otherwise.
func (r *Requirement) Values() []string {
	return slices.Clone(r.values)
}

// Bounds returns copies of the inclusive integer bounds; nil means open on that side.
func (r *Requirement) Bounds() (gte, lte *int64) {
	return clonePtr(r.gte), clonePtr(r.lte)
}

// Has reports whether the requirement allows value. Under a bound only base-10 integers inside the
// range are allowed, as in Kubernetes node affinity.
func (r *Requirement) Has(value string) bool {
	return contains(r.values, value) != r.complement && withinBounds(value, r.gte, r.lte)
}

// Len returns the number of allowed values: math.MaxInt for a complement, whose allowed values are
// unbounded (even a bounded range admits every decimal spelling of its integers, like "7" and "07").
func (r *Requirement) Len() int {
	if r.complement {
		return math.MaxInt
	}
	return len(r.values)
}

// AllowsAbsent reports whether a node without the label satisfies the requirement: true for NotIn and
// DoesNotExist, false otherwise (a bound, like In and Exists, needs the label to be present).
func (r *Requirement) AllowsAbsent() bool {
	if !r.complement {
		return len(r.values) == 0
	}
	return r.gte == nil && r.lte == nil && len(r.values) > 0
}

// Any returns an allowed value, deterministically: the smallest value of an In set; for a complement,
// a base-10 integer (because a bounded complement admits only integers, and one rule should serve all
// complements): the first one allowed walking up from the point of [gte, lte] nearest zero, then down
// from it. It returns "" when the requirement allows no value, or when every integer of a bounded
// range is excluded (only other spellings such as "07" would remain).
func (r *Requirement) Any() string {
	if !r.complement {
		if len(r.values) == 0 {
			return ""
		}
		return r.values[0]
	}
	return r.anyInteger()
}

func (r *Requirement) anyInteger() string {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if r.gte != nil {
		lo = *r.gte
	}
	if r.lte != nil {
		hi = *r.lte
	}
	start := min(max(0, lo), hi)
	if s, ok := r.firstAllowed(start, hi, 1); ok {
		return s
	}
	if start > lo {
		if s, ok := r.firstAllowed(start-1, lo, -1); ok {
			return s
		}
	}
	return ""
}

// firstAllowed walks from n towards limit (inclusive) in steps of step and returns the first integer
// the complement does not exclude. Each excluded value rules out at most one integer, so
// len(values)+1 candidates always suffice unless the range ends first.
func (r *Requirement) firstAllowed(n, limit, step int64) (string, bool) {
	for range len(r.values) + 1 {
		if s := strconv.FormatInt(n, 10); !contains(r.values, s) {
			return s, true
		}
		if n == limit {
			break
		}
		n += step
	}
	return "", false
}

// WithMinValues returns a copy of r with MinValues set to minValues.
func (r *Requirement) WithMinValues(minValues *int) *Requirement {
	c := *r
	c.MinValues = minValues
	return &c
}

// Equal reports whether r and o have the same key, allowed values, bounds and minValues.
func (r *Requirement) Equal(o *Requirement) bool {
	if r == nil || o == nil {
		return r == o
	}
	return r.Key == o.Key && r.complement == o.complement && slices.Equal(r.values, o.values) &&
		equalPtr(r.gte, o.gte) && equalPtr(r.lte, o.lte) && equalPtr(r.MinValues, o.MinValues)
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}
