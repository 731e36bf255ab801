package imagefamily

import (
	"slices"

	"github.com/napkit/napkit/api"
	corev1 "k8s.io/api/core/v1"
)

// UnregisteredTaint keeps pods off a node until Karpenter has registered it and synced its labels
// and taints; Karpenter removes it.
func UnregisteredTaint() corev1.Taint {
	return corev1.Taint{Key: api.TaintKeyUnregistered, Effect: corev1.TaintEffectNoExecute}
}

// nodeTaints returns the node's taints and startup taints, each de-duplicated by key and effect (the
// first occurrence wins), with the unregistered taint added to the startup taints when absent. Input
// slices are not modified.
func nodeTaints(taints, startup []corev1.Taint) (regular, startupOut []corev1.Taint) {
	regular = dedupeTaints(nil, taints)
	startupOut = dedupeTaints(regular, startup)
	if !slices.ContainsFunc(append(slices.Clone(regular), startupOut...), isUnregistered) {
		startupOut = append(startupOut, UnregisteredTaint())
	}
	return regular, startupOut
}

// dedupeTaints returns the taints of add whose key and effect are in neither seen nor earlier in add.
func dedupeTaints(seen, add []corev1.Taint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range add {
		same := func(o corev1.Taint) bool { return o.Key == t.Key && o.Effect == t.Effect }
		if !slices.ContainsFunc(seen, same) && !slices.ContainsFunc(out, same) {
			out = append(out, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
	}
	return out
}

func isUnregistered(t corev1.Taint) bool {
	return t.Key == api.TaintKeyUnregistered && t.Effect == corev1.TaintEffectNoExecute
}
