package provisioner

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// toleratesTaint reports whether a toleration matches a taint, as kube-scheduler does (including the
// numeric Lt and Gt operators).
func toleratesTaint(t *corev1.Toleration, taint *corev1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", corev1.TolerationOpEqual:
		return t.Value == taint.Value
	case corev1.TolerationOpExists:
		return true
	case corev1.TolerationOpLt, corev1.TolerationOpGt:
		tol, err1 := strconv.ParseInt(t.Value, 10, 64)
		val, err2 := strconv.ParseInt(taint.Value, 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if t.Operator == corev1.TolerationOpLt {
			return val < tol
		}
		return val > tol
	}
	return false
}

// untolerated returns the first taint the tolerations do not tolerate, or nil. PreferNoSchedule
// taints count only when preferNoSchedule is false (they are preferences, relaxed last).
func untolerated(tols []corev1.Toleration, taints []corev1.Taint, tolerateSoft bool) *corev1.Taint {
	for i := range taints {
		taint := &taints[i]
		if taint.Effect == corev1.TaintEffectPreferNoSchedule && tolerateSoft {
			continue
		}
		ok := false
		for j := range tols {
			if toleratesTaint(&tols[j], taint) {
				ok = true
				break
			}
		}
		if !ok {
			return taint
		}
	}
	return nil
}

// Tolerates reports whether tolerations let a pod onto a node with these taints the way
// kube-scheduler's TaintToleration filter decides: every NoSchedule and NoExecute taint tolerated
// (PreferNoSchedule is a score, not a filter). Exported so other planners (schedreplay) apply the
// same toleration rules, numeric Lt/Gt included, instead of a second copy.
func Tolerates(tols []corev1.Toleration, taints []corev1.Taint) bool {
	return untolerated(tols, taints, true) == nil
}

// daemonTolerations are the tolerations the DaemonSet controller adds to every daemon pod.
var daemonTolerations = []corev1.Toleration{
	{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodePIDPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeNetworkUnavailable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
}

func taintString(t *corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}
