package requirements

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// Requirements holds one Requirement per normalised label key; together they must all be met. Being a
// map it is passed by value, never by pointer. Build it with New or a From function; the nil
// Requirements is a valid, empty, read-only value (Add needs a map).
type Requirements map[string]*Requirement

// New returns requirements holding reqs, Added in order, so that two requirements on one key intersect.
func New(reqs ...*Requirement) Requirements {
	rs := make(Requirements, len(reqs))
	rs.Add(reqs...)
	return rs
}

// Add narrows rs by each requirement: a new key is stored as given, an existing key is replaced by the
// intersection of the two. Nil requirements are skipped. Add modifies rs (the map), never the stored
// requirements, so copies made by Clone are unaffected.
func (rs Requirements) Add(reqs ...*Requirement) {
	for _, r := range reqs {
		if r == nil {
			continue
		}
		if existing, ok := rs[r.Key]; ok {
			r = existing.Intersection(r)
		}
		rs[r.Key] = r
	}
}

// Get returns the requirement on key (normalised first), or an Exists requirement when rs leaves the
// key undefined: an undefined key constrains nothing.
func (rs Requirements) Get(key string) *Requirement {
	key = api.NormalizeLabelKey(key)
	if r, ok := rs[key]; ok {
		return r
	}
	return NewRequirement(key, corev1.NodeSelectorOpExists)
}

// Has reports whether rs defines key (normalised first).
func (rs Requirements) Has(key string) bool {
	_, ok := rs[api.NormalizeLabelKey(key)]
	return ok
}

// Keys returns the defined keys, sorted.
func (rs Requirements) Keys() []string {
	return slices.Sorted(maps.Keys(rs))
}

// Labels returns the labels rs pins down: every key whose requirement is In with exactly one value.
// Callers filter out keys that may not be set on a node (kubernetes.io/hostname and the like).
func (rs Requirements) Labels() map[string]string {
	labels := make(map[string]string, len(rs))
	for key, r := range rs {
		if !r.complement && len(r.values) == 1 {
			labels[key] = r.values[0]
		}
	}
	return labels
}

// Clone returns a copy of rs that shares no mutable state with it: the map and the Requirement structs
// are copied (in one allocation), the immutable value slices are shared.
func (rs Requirements) Clone() Requirements {
	out := make(Requirements, len(rs))
	copies := make([]Requirement, len(rs))
	i := 0
	for key, r := range rs {
		if r == nil {
			continue
		}
		copies[i] = *r
		out[key] = &copies[i]
		i++
	}
	return out
}

// Equal reports whether rs and o define the same keys with Equal requirements.
func (rs Requirements) Equal(o Requirements) bool {
	return maps.EqualFunc(rs, o, (*Requirement).Equal)
}
