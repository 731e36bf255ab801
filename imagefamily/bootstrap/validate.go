package bootstrap

import (
	"errors"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// ValidateLabels checks every key against the Kubernetes qualified-name syntax and every value
// against the label-value syntax. Kubernetes syntax leaves no room for spaces, quotes, commas or
// '=', so a valid label can neither break the "k=v,k=v" list the kubelet reads nor the script around
// it. All problems are reported (errors.Join), in key order; each is an *api.FieldError.
func ValidateLabels(labels map[string]string) error {
	var errs []error
	for _, k := range sortedKeys(labels) {
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			errs = append(errs, invalid("label key", k, "%s", strings.Join(msgs, "; ")))
		}
		if msgs := validation.IsValidLabelValue(labels[k]); len(msgs) > 0 {
			errs = append(errs, invalid("label "+k, labels[k], "%s", strings.Join(msgs, "; ")))
		}
	}
	return errors.Join(errs...)
}

// taintEffects are the effects the kubelet accepts in --register-with-taints.
var taintEffects = []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}

// ValidateTaints checks each taint as the API server would: a qualified-name key, a label-syntax
// value and a known effect.
func ValidateTaints(taints []corev1.Taint) error {
	var errs []error
	for _, t := range taints {
		if msgs := validation.IsQualifiedName(t.Key); len(msgs) > 0 {
			errs = append(errs, invalid("taint key", t.Key, "%s", strings.Join(msgs, "; ")))
		}
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, invalid("taint "+t.Key+" value", t.Value, "%s", strings.Join(msgs, "; ")))
		}
		if !slices.Contains(taintEffects, t.Effect) {
			errs = append(errs, invalid("taint "+t.Key+" effect", string(t.Effect), "must be NoSchedule, PreferNoSchedule or NoExecute"))
		}
	}
	return errors.Join(errs...)
}

// flagPattern is what a kubelet flag in KUBELET_FLAGS may look like. The AKS provisioning script
// expands that variable unquoted, so a value must not contain whitespace (word splitting) or shell
// syntax; '*' is allowed because sysctl patterns (net.*) need it and the kubelet, not the shell, is
// meant to read it.
var flagPattern = regexp.MustCompile(`^--[a-z0-9][a-z0-9-]*(=[A-Za-z0-9._,:=<>%/*+@~-]*)?$`)

// ValidateFlags checks each kubelet flag against flagPattern.
func ValidateFlags(flags []string) error {
	var errs []error
	for _, f := range flags {
		if !flagPattern.MatchString(f) {
			errs = append(errs, invalid("kubelet flag", f,
				"must be --name=value with a value of letters, digits and ._,:=<>%%/*+@~- only"))
		}
	}
	return errors.Join(errs...)
}
