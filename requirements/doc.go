// Package requirements is napkit's label-requirements algebra: the value type that says which values a
// node label may take, and the operations every later step uses to combine and compare such constraints.
//
// A [Requirement] constrains one label key. It is a sorted set of values (In), the complement of one
// (NotIn, Exists), or the empty set (DoesNotExist), optionally narrowed by inclusive integer bounds
// (Gt, Lt and Karpenter's own [Gte] and [Lte]). [Requirements] holds one Requirement per key.
//
// Data flows in one direction:
//
//	NodePool spec.requirements ── FromAPI ──────────┐
//	pod nodeSelector, affinity ── FromLabels,       ├─► Add ─► NodeClaim's Requirements ─► ToAPI, Labels ─► NodeClaim
//	                              FromNodeSelector ─┘                    │
//	                                                                     │ Compatible: which instance types fit
//	instance-type labels ──────── FromLabels, New ────────► instance type's Requirements
//
// The catalogue (package instancetype) describes every instance type and offering as Requirements; the
// scheduler narrows a NodeClaim's Requirements with each pod it places and filters instance types with
// [Requirements.Compatible]; consolidation compares the same values. The semantics follow Karpenter's
// pkg/scheduling so that a NodePool means here what it means there:
//
//   - label aliases (failure-domain.beta.kubernetes.io/zone and the like) are normalised to their
//     stable keys by api.NormalizeLabelKey, so both spellings meet;
//   - Gt N is stored as Gte N+1 and Lt N as Lte N-1; an empty range, Gt of the largest int64 and a
//     bound that is not a base-10 int64 all become a requirement that matches no value;
//   - a requirement that matches no value reports the DoesNotExist operator. Like Karpenter, the
//     algebra does not tell "the label must be absent" from "no value can satisfy both", so two
//     conflicting In requirements on one key intersect to DoesNotExist;
//   - two negative requirements (NotIn or DoesNotExist) never conflict, because a node without the
//     label satisfies both;
//   - MinValues of an intersection is the larger of the two.
//
// Values are immutable once built: every operation returns a new value and no constructor keeps or
// changes the caller's slices, so a Requirement may be shared between goroutines and between the
// Requirements of many instance types. Treat the exported fields Key and MinValues as read-only; use
// [Requirement.WithMinValues] for a changed copy. Output (Keys, ToAPI, String, errors) is sorted by key
// so that equal inputs always give equal results.
//
// The package is pure: no I/O, no logging, no global mutable state. Validation of manifests (operator
// allowed, value count, minValues range) belongs to package api; the constructors here accept anything
// and never panic, turning what cannot match into a requirement that matches nothing.
package requirements
