package requirements

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
)

// Compatible reports whether o can be met by something rs describes, as the scheduler asks of an
// instance type (rs) and a NodeClaim's or pod's requirements (o). Every key of o must be defined by rs
// unless o's requirement there is negative (NotIn, DoesNotExist: a node without the label meets it) or
// the key is in allowUndefined (usually api.WellKnownLabels(), which every instance type defines); and
// every key both define must intersect.
//
// It returns nil when compatible, else an *IncompatibleError (errors.Is ErrIncompatible) for the
// smallest conflicting key. It allocates only on failure; IsCompatible is the bool-only form.
func (rs Requirements) Compatible(o Requirements, allowUndefined sets.Set[string]) error {
	failed, reason := "", Reason(0)
	for key, incoming := range o {
		if why := rs.check(key, incoming, allowUndefined); why != 0 && (reason == 0 || key < failed) {
			failed, reason = key, why
		}
	}
	if reason == 0 {
		return nil
	}
	return rs.conflict(failed, o[failed], reason)
}

// IsCompatible is Compatible without the explanation: it stops at the first conflict.
func (rs Requirements) IsCompatible(o Requirements, allowUndefined sets.Set[string]) bool {
	for key, incoming := range o {
		if rs.check(key, incoming, allowUndefined) != 0 {
			return false
		}
	}
	return true
}

// Incompatibilities explains every conflict Compatible would find, sorted by key; it is empty when rs
// and o are compatible. Use it to report why a pod fits no instance type, not in a hot loop.
func (rs Requirements) Incompatibilities(o Requirements, allowUndefined sets.Set[string]) []*IncompatibleError {
	var errs []*IncompatibleError
	for key, incoming := range o {
		if why := rs.check(key, incoming, allowUndefined); why != 0 {
			errs = append(errs, rs.conflict(key, incoming, why))
		}
	}
	slices.SortFunc(errs, func(a, b *IncompatibleError) int { return strings.Compare(a.Key, b.Key) })
	return errs
}

// Intersects checks only the keys both rs and o define: each pair must intersect. Keys defined on one
// side only are allowed. It returns nil or an *IncompatibleError for the smallest conflicting key.
func (rs Requirements) Intersects(o Requirements) error {
	failed, found := "", false
	for key, incoming := range o {
		existing, ok := rs[key]
		if ok && !existing.Intersects(incoming) && (!found || key < failed) {
			failed, found = key, true
		}
	}
	if !found {
		return nil
	}
	return rs.conflict(failed, o[failed], ReasonDisjoint)
}

// check classifies one key of the incoming requirements against rs; 0 means no conflict.
func (rs Requirements) check(key string, incoming *Requirement, allowUndefined sets.Set[string]) Reason {
	existing, ok := rs[key]
	if !ok {
		if incoming.AllowsAbsent() || allowUndefined.Has(key) {
			return 0
		}
		return ReasonUndefined
	}
	if existing.Intersects(incoming) {
		return 0
	}
	return ReasonDisjoint
}

func (rs Requirements) conflict(key string, incoming *Requirement, reason Reason) *IncompatibleError {
	return &IncompatibleError{Key: key, Reason: reason, Existing: rs[key], Incoming: incoming}
}
