package manifest

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/napkit/napkit/api"
)

// Kind identifies a document type by apiVersion and kind, as they appear in the manifest.
type Kind struct {
	APIVersion string
	Kind       string
}

// String renders "apiVersion/kind", e.g. "karpenter.sh/v1/NodePool" or "v1/Pod".
func (k Kind) String() string { return k.APIVersion + "/" + k.Kind }

// DecodeFunc reads one document into the set being built. It returns an error wrapping ErrDecode or
// api.ErrInvalid; the caller adds the document's position.
type DecodeFunc func(doc *Document, set *Set) error

// The kinds napkit reads into types, and the Kubernetes kinds it keeps as raw Objects for later
// decoders (pods and their controllers, disruption budgets, nodes, storage and priorities).
var (
	kindNodePool     = Kind{api.KarpenterVersion, api.KindNodePool}
	kindNodeClaim    = Kind{api.KarpenterVersion, api.KindNodeClaim}
	kindAKSNodeClass = Kind{api.AzureVersion, api.KindAKSNodeClass}
	kindList         = Kind{"v1", "List"}

	// rawKinds maps each kept kind to a new value of its k8s.io/api type, which KeepObject decodes
	// it into strictly, so that a bad value is refused when read rather than wherever it is used.
	rawKinds = map[Kind]func() runtime.Object{
		{"v1", "Pod"}:                             func() runtime.Object { return &corev1.Pod{} },
		{"v1", "Node"}:                            func() runtime.Object { return &corev1.Node{} },
		{"v1", "Namespace"}:                       func() runtime.Object { return &corev1.Namespace{} },
		{"v1", "ReplicationController"}:           func() runtime.Object { return &corev1.ReplicationController{} },
		{"v1", "PersistentVolume"}:                func() runtime.Object { return &corev1.PersistentVolume{} },
		{"v1", "PersistentVolumeClaim"}:           func() runtime.Object { return &corev1.PersistentVolumeClaim{} },
		{"apps/v1", "Deployment"}:                 func() runtime.Object { return &appsv1.Deployment{} },
		{"apps/v1", "StatefulSet"}:                func() runtime.Object { return &appsv1.StatefulSet{} },
		{"apps/v1", "DaemonSet"}:                  func() runtime.Object { return &appsv1.DaemonSet{} },
		{"apps/v1", "ReplicaSet"}:                 func() runtime.Object { return &appsv1.ReplicaSet{} },
		{"batch/v1", "Job"}:                       func() runtime.Object { return &batchv1.Job{} },
		{"batch/v1", "CronJob"}:                   func() runtime.Object { return &batchv1.CronJob{} },
		{"policy/v1", "PodDisruptionBudget"}:      func() runtime.Object { return &policyv1.PodDisruptionBudget{} },
		{"scheduling.k8s.io/v1", "PriorityClass"}: func() runtime.Object { return &schedulingv1.PriorityClass{} },
		{"storage.k8s.io/v1", "StorageClass"}:     func() runtime.Object { return &storagev1.StorageClass{} },
	}
)

// DefaultKinds returns a new table of the kinds Decode understands. Callers may add to or replace
// entries and pass the table to NewDecoder: a later Pod decoder replaces the raw entry for v1 Pod.
func DefaultKinds() map[Kind]DecodeFunc {
	kinds := map[Kind]DecodeFunc{
		kindNodePool:     decodeNodePool,
		kindNodeClaim:    decodeNodeClaim,
		kindAKSNodeClass: decodeNodeClass,
	}
	for k := range rawKinds {
		kinds[k] = KeepObject
	}
	return kinds
}

// KeepObject is the DecodeFunc for the Kubernetes kinds napkit reads later: it keeps the document as
// an Object. A kind of DefaultKinds is first decoded strictly into its k8s.io/api type (see
// Object.Decode), so that a Set never holds an object that a later strict decode would refuse.
func KeepObject(doc *Document, set *Set) error {
	obj := Object{
		Kind:      doc.Kind,
		Namespace: doc.Namespace,
		Name:      doc.Name,
		Position:  doc.Position(),
		JSON:      doc.JSON,
	}
	pre := doc.pre
	if pre == nil {
		obj, err := decodeTyped(doc)
		pre = &predecoded{obj: obj, err: err}
	}
	if pre.err != nil {
		return pre.err
	}
	obj.typed = pre.obj
	set.Objects = append(set.Objects, obj)
	return nil
}

// decodeTyped decodes a document of rawKinds strictly into its k8s.io/api type and checks its pod
// resources; other kinds give nil.
func decodeTyped(doc *Document) (runtime.Object, error) {
	newValue, ok := rawKinds[doc.Kind]
	if !ok {
		return nil, nil
	}
	v := newValue()
	if err := decodeStrict(doc.JSON, v); err != nil {
		return nil, err
	}
	if err := validatePodResources(v); err != nil {
		return nil, err
	}
	return v, nil
}

// validatePodResources refuses a negative request, limit or overhead in the pod spec of a Pod or a
// workload's template, as the API server would, naming the container; a planner summing it would
// quietly shrink the pod instead.
func validatePodResources(obj runtime.Object) error {
	spec, path := podSpecOf(obj)
	if spec == nil {
		return nil
	}
	if fe := api.NegativePodResource(spec, path); fe != nil {
		return &api.ValidationError{Errors: []*api.FieldError{fe}}
	}
	return nil
}

// podSpecOf returns the pod spec an object runs, and its path, or nil.
func podSpecOf(obj runtime.Object) (*corev1.PodSpec, *field.Path) {
	template := field.NewPath("spec", "template", "spec")
	switch o := obj.(type) {
	case *corev1.Pod:
		return &o.Spec, field.NewPath("spec")
	case *corev1.ReplicationController:
		if o.Spec.Template != nil {
			return &o.Spec.Template.Spec, template
		}
	case *appsv1.Deployment:
		return &o.Spec.Template.Spec, template
	case *appsv1.StatefulSet:
		return &o.Spec.Template.Spec, template
	case *appsv1.DaemonSet:
		return &o.Spec.Template.Spec, template
	case *appsv1.ReplicaSet:
		return &o.Spec.Template.Spec, template
	case *batchv1.Job:
		return &o.Spec.Template.Spec, template
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template.Spec, field.NewPath("spec", "jobTemplate", "spec", "template", "spec")
	}
	return nil, nil
}
