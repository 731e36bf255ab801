package manifest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

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

// sortObjects returns objs sorted by compareObjects. It sorts their indices and then places the
// objects once: an Object is 120 bytes of which half are pointers, and swapping them in place
// cost as much as the comparisons.
func sortObjects(objs []Object) []Object {
	if slices.IsSortedFunc(objs, compareObjects) {
		return objs
	}
	order := make([]int32, len(objs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return compareObjectPtrs(&objs[a], &objs[b]) })
	sorted := make([]Object, len(objs))
	for i, j := range order {
		sorted[i] = objs[j]
	}
	return sorted
}

// compareObjects orders Objects by apiVersion, kind, namespace and name. It compares a field only
// while the ones before are equal (cmp.Or would compare all four): sorting 10,000 Pods calls it
// about 140,000 times.
func compareObjects(a, b Object) int { return compareObjectPtrs(&a, &b) }

func compareObjectPtrs(a, b *Object) int {
	if c := cmp.Compare(a.Kind.APIVersion, b.Kind.APIVersion); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Kind.Kind, b.Kind.Kind); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
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
