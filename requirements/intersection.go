package requirements

// Intersection returns the requirement that allows exactly the values both r and o allow, keyed by
// r.Key:
//
//   - complement ∧ complement: the complement of the union of their values;
//   - set ∧ complement: the set minus the complement's values;
//   - set ∧ set: the common values;
//   - bounds: the larger lower and the smaller upper bound; an empty range gives DoesNotExist, and a
//     concrete result set is filtered by the bounds, which it then no longer carries;
//   - MinValues: the larger of the two.
//
// The result may share value slices with r and o; none of them is modified.
func (r *Requirement) Intersection(o *Requirement) *Requirement {
	gte, lte := maxBound(r.gte, o.gte), minBound(r.lte, o.lte)
	out := &Requirement{Key: r.Key, MinValues: maxMinValues(r.MinValues, o.MinValues)}
	if emptyRange(gte, lte) {
		return out
	}
	out.values = intersectValues(r, o, gte, lte)
	if out.complement = r.complement && o.complement; out.complement {
		out.gte, out.lte = gte, lte
	}
	return out
}

// intersectValues computes the value list of r ∧ o under the combined bounds. For a complement result
// the excluded values outside the bounds are dropped too: the bounds already exclude them, and dropping
// them keeps one representation per value set (NotIn [5 b] ∧ Gt 5 is just Gte 6).
func intersectValues(r, o *Requirement, gte, lte *int64) []string {
	inBounds := func(v string) bool { return withinBounds(v, gte, lte) }
	switch {
	case r.complement && o.complement:
		return filter(union(r.values, o.values), inBounds)
	case r.complement:
		return filter(o.values, func(v string) bool { return !contains(r.values, v) && inBounds(v) })
	case o.complement:
		return filter(r.values, func(v string) bool { return !contains(o.values, v) && inBounds(v) })
	default:
		short, long := r.values, o.values
		if len(long) < len(short) {
			short, long = long, short
		}
		return filter(short, func(v string) bool { return contains(long, v) && inBounds(v) })
	}
}

// Intersects reports whether r and o can both be met: some value is allowed by both, or both are
// negative (NotIn or DoesNotExist), which a node without the label satisfies. It agrees with
// Intersection but allocates nothing, for the scheduler's hot path.
func (r *Requirement) Intersects(o *Requirement) bool {
	if r.AllowsAbsent() && o.AllowsAbsent() {
		return true
	}
	gte, lte := maxBound(r.gte, o.gte), minBound(r.lte, o.lte)
	if emptyRange(gte, lte) {
		return false
	}
	switch {
	case r.complement && o.complement:
		// A non-empty range, or no range at all, admits infinitely many strings ("7", "07", "007"...)
		// and the two complements exclude finitely many.
		return true
	case r.complement:
		return someValue(o.values, r.values, true, gte, lte)
	case o.complement:
		return someValue(r.values, o.values, true, gte, lte)
	case len(o.values) < len(r.values):
		return someValue(o.values, r.values, false, gte, lte)
	default:
		return someValue(r.values, o.values, false, gte, lte)
	}
}

// someValue reports whether a value of set is in bounds and passes the other side: in other, or, when
// excluded is true, not in other.
func someValue(set, other []string, excluded bool, gte, lte *int64) bool {
	for _, v := range set {
		if contains(other, v) != excluded && withinBounds(v, gte, lte) {
			return true
		}
	}
	return false
}
