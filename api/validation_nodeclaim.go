package api

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks the NodeClaim against the karpenter.sh/v1 CRD rules: requirements, taints, the node
// class reference and durations. The error lists every problem with its field path and bad value, and
// wraps ErrInvalid.
func (c *NodeClaim) Validate() error {
	errs := validateName(c.Name, false)
	sp := field.NewPath("spec")
	errs = append(errs, validateRequirements(sp.Child("requirements"), c.Spec.Requirements)...)
	errs = append(errs, validateTaints(sp.Child("taints"), c.Spec.Taints)...)
	errs = append(errs, validateTaints(sp.Child("startupTaints"), c.Spec.StartupTaints)...)
	errs = append(errs, validateNodeClassRef(sp.Child("nodeClassRef"), c.Spec.NodeClassRef, true)...)
	errs = append(errs, validateOptionalDuration(sp.Child("terminationGracePeriod"), c.Spec.TerminationGracePeriod)...)
	errs = append(errs, validateNillableDuration(sp.Child("expireAfter"), c.Spec.ExpireAfter)...)
	return toError(append(errs, validateLimits(sp.Child("resources", "requests"), c.Spec.Resources.Requests)...))
}
