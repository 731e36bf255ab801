package requirements

import "slices"

// The value sets are small sorted slices rather than maps: most requirements hold one to a few values
// (an instance type's labels, a pod's zone), where a linear scan beats hashing and a slice costs one
// allocation instead of a map's several. The helpers never modify their inputs, so a result may share
// its backing array with an input; that is what keeps Intersection cheap when nothing is removed.

// linearScanMax is the slice length up to which contains scans instead of bisecting.
const linearScanMax = 8

// sortedSet returns a sorted, duplicate-free copy of values; the caller's slice is left untouched.
func sortedSet(values []string) []string {
	out := slices.Clone(values)
	slices.Sort(out)
	return slices.Compact(out)
}

// contains reports whether the sorted slice holds v.
func contains(sorted []string, v string) bool {
	if len(sorted) <= linearScanMax {
		for _, s := range sorted {
			if s == v {
				return true
			}
		}
		return false
	}
	_, found := slices.BinarySearch(sorted, v)
	return found
}

// filter returns the elements of sorted for which keep is true, in order. When every element is kept
// it returns sorted itself without allocating.
func filter(sorted []string, keep func(string) bool) []string {
	for i, v := range sorted {
		if keep(v) {
			continue
		}
		out := make([]string, i, len(sorted)-1)
		copy(out, sorted[:i])
		for _, w := range sorted[i+1:] {
			if keep(w) {
				out = append(out, w)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return sorted
}

// union returns the sorted union of two sorted sets. When one set already holds the other it is
// returned as is, without allocating.
func union(a, b []string) []string {
	if subset(b, a) {
		return a
	}
	if subset(a, b) {
		return b
	}
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// subset reports whether every element of the sorted set a is in the sorted set b.
func subset(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}
	for _, v := range a {
		if !contains(b, v) {
			return false
		}
	}
	return true
}
