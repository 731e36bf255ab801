package manifest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	goruntime "runtime"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/napkit/napkit/api"
)

// Set is everything read from a set of manifests: typed Karpenter objects, defaulted and validated,
// sorted by name; other Kubernetes objects as raw JSON; and the notes raised on the way.
type Set struct {
	NodePools   []*api.NodePool
	NodeClasses []*api.AKSNodeClass
	NodeClaims  []*api.NodeClaim
	// Objects are Kubernetes kinds napkit does not type yet (Deployments, Pods, ...), sorted by
	// apiVersion, kind, namespace and name.
	Objects []Object
	// Notes are in input order, followed by notes about references between objects.
	Notes []api.Note
}

// Object is a Kubernetes object kept as JSON for a later decoder.
type Object struct {
	Kind      Kind
	Namespace string
	Name      string
	// Position is where the object was read, as Document.Position renders it.
	Position string
	JSON     json.RawMessage
	// typed is the object decoded into its k8s.io/api type when read, for kinds of DefaultKinds.
	typed runtime.Object
}

// Decode reads the object into v, a pointer to its k8s.io/api type (*appsv1.Deployment for a
// Deployment), as strictly as the typed Karpenter kinds: an unknown or duplicate field is an error
// (kubectl's --validate=strict refuses it too, and a misspelt nodeSelector would otherwise be
// dropped), and a bad value is named by path and value, e.g.
//
//	seed.yaml document 3 (line 40) Deployment default/web: cannot decode:
//	spec.template.spec.containers[0].resources.requests.cpu: quantities must match ..., got "abc"
//
// The error is a *DocumentError wrapping ErrDecode and, for a bad value, an *api.FieldError of class ErrDecode.
//
// An object of DefaultKinds was decoded when read; decoding it into its own type again copies that
// value (a deep copy: callers may modify it).
func (o Object) Decode(v any) error {
	if o.typed != nil {
		dst := reflect.ValueOf(v)
		if dst.Kind() == reflect.Pointer && !dst.IsNil() && dst.Type() == reflect.TypeOf(o.typed) {
			dst.Elem().Set(reflect.ValueOf(o.typed.DeepCopyObject()).Elem())
			return nil
		}
	}
	if err := decodeStrict(o.JSON, v); err != nil {
		return &DocumentError{Position: o.Position, Object: objectName(o.Kind.Kind, o.Namespace, o.Name), Err: err}
	}
	return nil
}

// Typed returns the object as decoded when read (for a kind of DefaultKinds; nil otherwise). It is
// the Set's own value, not a copy: for a caller that hands the Set over and reads it no more, it
// saves Decode's deep copy (about 3 µs per Pod).
func (o Object) Typed() runtime.Object { return o.typed }

// sortObjects sorts objs by compareObjects, in place, and returns them. It sorts small keys, not the
// objects: the (apiVersion, kind, namespace) groups are ranked first (a few distinct ones, however
// many objects), so most comparisons are an integer and a name, on a contiguous slice; then each
// object is moved once, along the cycles of the permutation. Why: comparing 120-byte Objects
// through their four strings, in place or through indices, was the largest sequential step of
// reading 10,000 Pods (6 ms), and placing them in a new slice was 1.2 MB of fresh memory.
func sortObjects(objs []Object) []Object {
	if slices.IsSortedFunc(objs, compareObjects) {
		return objs
	}
	keys := sortKeys(objectKeys(objs))
	permute(objs, keys)
	return objs
}

// permute moves objs[keys[i].index] to objs[i] for every i, following each cycle of the
// permutation from its first position; a placed position's key index is set to -1.
func permute(objs []Object, keys []objectKey) {
	for start := range keys {
		if keys[start].index < 0 {
			continue
		}
		held := objs[start]
		j := start
		for {
			from := int(keys[j].index)
			keys[j].index = -1
			if from == start {
				objs[j] = held
				break
			}
			objs[j] = objs[from]
			j = from
		}
	}
}

// parallelSortMin is the fewest keys sortKeys sorts in two halves at once: below it, starting a
// goroutine and merging cost more than they save.
const parallelSortMin = 4096

// sortKeys sorts keys, the two halves side by side when there are many and two cores, then merges
// them: the sort is otherwise a sequential step of every large read. (apiVersion, kind, namespace,
// name) is unique in a Set, so the order is total and the result is the same either way.
func sortKeys(keys []objectKey) []objectKey {
	if len(keys) < parallelSortMin || goruntime.GOMAXPROCS(0) < 2 {
		slices.SortFunc(keys, compareKeys)
		return keys
	}
	half := len(keys) / 2
	done := make(chan struct{})
	go func() {
		slices.SortFunc(keys[:half], compareKeys)
		close(done)
	}()
	slices.SortFunc(keys[half:], compareKeys)
	<-done
	merged := make([]objectKey, 0, len(keys))
	a, b := keys[:half], keys[half:]
	for len(a) > 0 && len(b) > 0 {
		if compareKeys(b[0], a[0]) < 0 {
			merged, b = append(merged, b[0]), b[1:]
		} else {
			merged, a = append(merged, a[0]), a[1:]
		}
	}
	return append(append(merged, a...), b...)
}

// compareKeys orders keys by group, then name. strings.Compare, not cmp.Compare: for strings the
// latter compares twice (less, then greater) where the names differ.
func compareKeys(a, b objectKey) int {
	if a.group != b.group {
		return cmp.Compare(a.group, b.group)
	}
	return strings.Compare(a.name, b.name)
}

// objectKey is an Object's place in the order: its group's rank, its name, and where it is.
type objectKey struct {
	group, index int32
	name         string
}

// objectKeys ranks the objects' (apiVersion, kind, namespace) groups and keys each object. Objects
// of one group mostly come in runs (a workload's pods), so an object whose group is the one before
// it skips the lookup.
func objectKeys(objs []Object) []objectKey {
	type group struct{ apiVersion, kind, namespace string }
	groupOf := func(o *Object) group { return group{o.Kind.APIVersion, o.Kind.Kind, o.Namespace} }
	ranks := map[group]int32{}
	for i := range objs {
		if i == 0 || groupOf(&objs[i]) != groupOf(&objs[i-1]) {
			ranks[groupOf(&objs[i])] = 0
		}
	}
	groups := slices.SortedFunc(maps.Keys(ranks), func(a, b group) int {
		return cmp.Or(cmp.Compare(a.apiVersion, b.apiVersion), cmp.Compare(a.kind, b.kind), cmp.Compare(a.namespace, b.namespace))
	})
	for i, g := range groups {
		ranks[g] = int32(i)
	}
	keys := make([]objectKey, len(objs))
	var last group
	var rank int32
	for i := range objs {
		if g := groupOf(&objs[i]); i == 0 || g != last {
			last, rank = g, ranks[g]
		}
		keys[i] = objectKey{group: rank, index: int32(i), name: objs[i].Name}
	}
	return keys
}

// compareObjects orders Objects by apiVersion, kind, namespace and name. It compares a field only
// while the ones before are equal (cmp.Or would compare all four): checking that 10,000 Pods are
// sorted calls it 10,000 times.
func compareObjects(a, b Object) int { return compareObjectPtrs(&a, &b) }

func compareObjectPtrs(a, b *Object) int {
	if c := strings.Compare(a.Kind.APIVersion, b.Kind.APIVersion); c != 0 {
		return c
	}
	if c := strings.Compare(a.Kind.Kind, b.Kind.Kind); c != 0 {
		return c
	}
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// NodePool returns the NodePool of that name, or nil.
func (s *Set) NodePool(name string) *api.NodePool {
	i := slices.IndexFunc(s.NodePools, func(np *api.NodePool) bool { return np.Name == name })
	if i < 0 {
		return nil
	}
	return s.NodePools[i]
}

// NodeClass returns the AKSNodeClass of that name, or nil.
func (s *Set) NodeClass(name string) *api.AKSNodeClass {
	i := slices.IndexFunc(s.NodeClasses, func(nc *api.AKSNodeClass) bool { return nc.Name == name })
	if i < 0 {
		return nil
	}
	return s.NodeClasses[i]
}

// finish sorts everything so that the same manifests give the same Set whatever their order, and
// notes NodePools whose node class is not among the manifests.
func (s *Set) finish() {
	slices.SortFunc(s.NodePools, func(a, b *api.NodePool) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.NodeClasses, func(a, b *api.AKSNodeClass) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.NodeClaims, func(a, b *api.NodeClaim) int { return cmp.Compare(a.Name, b.Name) })
	s.Objects = sortObjects(s.Objects)
	for _, np := range s.NodePools {
		ref := np.Spec.Template.Spec.NodeClassRef
		if ref != nil && s.NodeClass(ref.Name) == nil {
			s.Notes = append(s.Notes, api.Note{
				Object:  objectRef(api.KindNodePool, np.Name),
				Field:   "spec.template.spec.nodeClassRef.name",
				Message: fmt.Sprintf("AKSNodeClass %q is not in these manifests; it must exist in the cluster", ref.Name),
			})
		}
	}
}
