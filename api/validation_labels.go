package api

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// keyUse says where a label key appears: requirements may select a few keys that labels may not set.
type keyUse int

const (
	useRequirement keyUse = iota
	useLabel
)

// kubeletDomains are label domains the kubelet refuses to set on itself, so a node could never carry
// a custom key there; kubeletDomainExceptions are subdomains it does allow.
var (
	kubeletDomains          = []string{"kubernetes.io", "k8s.io"}
	kubeletDomainExceptions = []string{"node.kubernetes.io", "node-restriction.kubernetes.io", "kops.k8s.io"}
	// coreWellKnownLabels are the Kubernetes keys inside the kubelet domains a NodePool may still use.
	coreWellKnownLabels = sets.New(LabelZone, LabelRegion, LabelInstanceType, LabelArch, LabelOS, LabelWindowsBuild)
	// aksOwnedLabels are AKS agent-pool bookkeeping keys; napkit nodes do not belong to an agent pool.
	aksOwnedLabels = sets.New("kubernetes.azure.com/agentpool", "kubernetes.azure.com/storageprofile",
		"kubernetes.azure.com/storagetier")
	// requirementOnlyKarpenterLabels may be selected in requirements but are set by Karpenter itself.
	requirementOnlyKarpenterLabels = sets.New(LabelCapacityType, LabelNodePool)
)

// labelDomain returns the prefix of a key before "/", or "" for an unprefixed key.
func labelDomain(key string) string {
	domain, _, found := strings.Cut(key, "/")
	if !found {
		return ""
	}
	return domain
}

// restrictedKeyReason says why key may not be used in a requirement or label, or "" when it may.
func restrictedKeyReason(key string, use keyUse) string {
	key = NormalizeLabelKey(key)
	domain := labelDomain(key)
	switch {
	case key == LabelHostname:
		return "kubernetes.io/hostname is restricted: napkit chooses the nodes, a NodePool cannot name one"
	case domain == KarpenterGroup || strings.HasSuffix(domain, "."+KarpenterGroup):
		if use == useRequirement && requirementOnlyKarpenterLabels.Has(key) {
			return ""
		}
		return "label domain karpenter.sh is reserved for Karpenter's own labels" + karpenterHint(use)
	case domain == AzureGroup:
		return azureProviderKeyReason(key)
	case domain == "kubernetes.azure.com":
		return aksKeyReason(key)
	}
	return kubeletDomainReason(key, domain)
}

func karpenterHint(use keyUse) string {
	if use == useRequirement {
		return " (only karpenter.sh/capacity-type and karpenter.sh/nodepool may be required)"
	}
	return " (select capacity type with a karpenter.sh/capacity-type requirement instead)"
}

func azureProviderKeyReason(key string) string {
	if key == LabelSKUHyperVGeneration {
		return "karpenter.azure.com/sku-hyperv-generation is restricted: napkit uses it to match node images to SKUs"
	}
	if !allowedAzureProviderLabels.Has(key) {
		return "not a karpenter.azure.com label NodePools may use; allowed: " + strings.Join(sets.List(allowedAzureProviderLabels), ", ")
	}
	return ""
}

func aksKeyReason(key string) string {
	if aksOwnedLabels.Has(key) {
		return "AKS sets this label on its own agent pools; napkit nodes belong to none"
	}
	if !allowedAKSLabels.Has(key) {
		return "not a kubernetes.azure.com label NodePools may use; allowed: " + strings.Join(sets.List(allowedAKSLabels), ", ")
	}
	return ""
}

func kubeletDomainReason(key, domain string) string {
	if coreWellKnownLabels.Has(key) {
		return ""
	}
	for _, exception := range kubeletDomainExceptions {
		if strings.HasSuffix(domain, exception) {
			return ""
		}
	}
	for _, restricted := range kubeletDomains {
		if strings.HasSuffix(domain, restricted) {
			return fmt.Sprintf("label domain %s is restricted: the kubelet will not set it; use a well-known key (%s) or another domain",
				restricted, strings.Join(sets.List(coreWellKnownLabels), ", "))
		}
	}
	return ""
}

// validateLabelKey checks syntax, then the domain rules.
func validateLabelKey(p *field.Path, key string, use keyUse) []*FieldError {
	if msgs := content.IsLabelKey(key); len(msgs) > 0 {
		return []*FieldError{invalid(p, key, "invalid label key: %s", strings.Join(msgs, "; "))}
	}
	if reason := restrictedKeyReason(key, use); reason != "" {
		return []*FieldError{invalid(p, key, "%s", reason)}
	}
	return nil
}

// validateLabelValue checks syntax, then that a key with a closed set of values gets one of them:
// any other value could never match an instance type.
func validateLabelValue(p *field.Path, key, value string) []*FieldError {
	if msgs := content.IsLabelValue(value); len(msgs) > 0 {
		return []*FieldError{invalid(p, value, "invalid label value: %s", strings.Join(msgs, "; "))}
	}
	if known, ok := wellKnownValues[NormalizeLabelKey(key)]; ok && !known.Has(value) {
		return []*FieldError{invalid(p, value, "%s can only be %s", key, strings.Join(sets.List(known), ", "))}
	}
	return nil
}

// validateTemplateLabels checks the labels a NodePool copies onto its nodes.
func validateTemplateLabels(p *field.Path, labels map[string]string) []*FieldError {
	var errs []*FieldError
	for _, key := range sets.List(sets.KeySet(labels)) {
		keyErrs := validateLabelKey(p.Key(key), key, useLabel)
		errs = append(errs, keyErrs...)
		if len(keyErrs) == 0 {
			errs = append(errs, validateLabelValue(p.Key(key), key, labels[key])...)
		}
	}
	return errs
}

var taintEffects = []string{
	string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute),
}

// validateTaints checks taint keys, values and effects, and that no key/effect pair repeats (the API
// server would merge them, so one of the two silently disappears).
func validateTaints(p *field.Path, taints []corev1.Taint) []*FieldError {
	var errs []*FieldError
	seen := sets.New[string]()
	for i, t := range taints {
		tp := p.Index(i)
		if msgs := content.IsLabelKey(t.Key); len(msgs) > 0 {
			errs = append(errs, invalid(tp.Child("key"), t.Key, "invalid taint key: %s", strings.Join(msgs, "; ")))
		}
		if msgs := content.IsLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, invalid(tp.Child("value"), t.Value, "invalid taint value: %s", strings.Join(msgs, "; ")))
		}
		errs = append(errs, validateTaintEffect(tp.Child("effect"), t.Effect)...)
		id := t.Key + ":" + string(t.Effect)
		if seen.Has(id) {
			errs = append(errs, invalid(tp, id, "duplicate taint key and effect"))
		}
		seen.Insert(id)
	}
	return errs
}

func validateTaintEffect(p *field.Path, effect corev1.TaintEffect) []*FieldError {
	if effect == "" {
		return []*FieldError{required(p, "one of %s", strings.Join(taintEffects, ", "))}
	}
	return oneOf(p, string(effect), taintEffects...)
}
