package api

import (
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks the NodePool against the karpenter.sh/v1 CRD rules (OpenAPI and CEL) and the Azure
// provider's label rules. Fields Default would fill in may be empty. The error lists every problem
// with its field path and bad value, and wraps ErrInvalid.
func (np *NodePool) Validate() error {
	errs := validateName(np.Name, true)
	spec := field.NewPath("spec")
	errs = append(errs, validateTemplate(spec.Child("template"), &np.Spec.Template)...)
	errs = append(errs, validateDisruption(spec.Child("disruption"), &np.Spec.Disruption)...)
	errs = append(errs, validateLimits(spec.Child("limits"), np.Spec.Limits)...)
	errs = append(errs, inRange(spec.Child("weight"), np.Spec.Weight, 1, 100)...)
	errs = append(errs, validateStatic(spec, &np.Spec)...)
	return toError(errs)
}

func validateTemplate(p *field.Path, t *NodeClaimTemplate) []*FieldError {
	meta := p.Child("metadata")
	errs := validateTemplateLabels(meta.Child("labels"), t.ObjectMeta.Labels)
	errs = append(errs, fromK8s(apivalidation.ValidateAnnotations(t.ObjectMeta.Annotations, meta.Child("annotations")))...)
	sp := p.Child("spec")
	errs = append(errs, validateRequirements(sp.Child("requirements"), t.Spec.Requirements)...)
	errs = append(errs, validateTaints(sp.Child("taints"), t.Spec.Taints)...)
	errs = append(errs, validateTaints(sp.Child("startupTaints"), t.Spec.StartupTaints)...)
	errs = append(errs, validateNodeClassRef(sp.Child("nodeClassRef"), t.Spec.NodeClassRef, false)...)
	errs = append(errs, validateOptionalDuration(sp.Child("terminationGracePeriod"), t.Spec.TerminationGracePeriod)...)
	return append(errs, validateNillableDuration(sp.Child("expireAfter"), t.Spec.ExpireAfter)...)
}

// validateNodeClassRef requires a name and, when group and kind are given, napkit's one node class:
// napkit builds nodes only from AKSNodeClass. Empty group and kind are left for NodePool.Default
// unless needGroupKind is set (NodeClaims, which nothing defaults).
func validateNodeClassRef(p *field.Path, ref *NodeClassReference, needGroupKind bool) []*FieldError {
	if ref == nil {
		return []*FieldError{required(p, "name the AKSNodeClass nodes are built from")}
	}
	var errs []*FieldError
	if ref.Name == "" {
		errs = append(errs, required(p.Child("name"), "name the AKSNodeClass nodes are built from"))
	}
	if needGroupKind && ref.Group == "" {
		errs = append(errs, required(p.Child("group"), "%s", AzureGroup))
	}
	if needGroupKind && ref.Kind == "" {
		errs = append(errs, required(p.Child("kind"), "%s", KindAKSNodeClass))
	}
	if ref.Group != "" && ref.Group != AzureGroup {
		errs = append(errs, invalid(p.Child("group"), ref.Group, "napkit only builds nodes from %s %s", AzureGroup, KindAKSNodeClass))
	}
	if ref.Kind != "" && ref.Kind != KindAKSNodeClass {
		errs = append(errs, invalid(p.Child("kind"), ref.Kind, "napkit only builds nodes from %s %s", AzureGroup, KindAKSNodeClass))
	}
	return errs
}

// validateLimits rejects negative limits: a negative cap would block every node.
func validateLimits(p *field.Path, limits corev1.ResourceList) []*FieldError {
	var errs []*FieldError
	for _, name := range sets.List(sets.KeySet(limits)) {
		if q := limits[name]; q.Sign() < 0 {
			errs = append(errs, invalid(p.Key(string(name)), q.String(), "must not be negative"))
		}
	}
	return errs
}

// validateStatic applies the alpha static-pool rules: a fixed replica count, only limits.nodes and no
// weight (there is nothing to rank a static pool against).
func validateStatic(p *field.Path, spec *NodePoolSpec) []*FieldError {
	if spec.Replicas == nil {
		return nil
	}
	errs := atLeast(p.Child("replicas"), spec.Replicas, 0)
	if spec.Weight != nil {
		errs = append(errs, invalid(p.Child("weight"), int64(*spec.Weight), "weight is not supported on static NodePools (replicas set)"))
	}
	for _, name := range sets.List(sets.KeySet(spec.Limits)) {
		if name != "nodes" {
			errs = append(errs, invalid(p.Child("limits").Key(string(name)), string(name), "only limits.nodes is supported on static NodePools (replicas set)"))
		}
	}
	return errs
}
