package controller

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

// condition returns the NodeClaim's condition of that type, or nil.
func condition(nc *api.NodeClaim, kind string) *metav1.Condition {
	return meta.FindStatusCondition(nc.Status.Conditions, kind)
}

func conditionTrue(nc *api.NodeClaim, kind string) bool {
	return meta.IsStatusConditionTrue(nc.Status.Conditions, kind)
}

// setCondition sets a condition and keeps Ready, Karpenter's roll-up of Launched, Registered and
// Initialized, in step. It reports whether anything changed.
func setCondition(nc *api.NodeClaim, kind string, status metav1.ConditionStatus, reason, message string, now time.Time) bool {
	changed := meta.SetStatusCondition(&nc.Status.Conditions, metav1.Condition{
		Type: kind, Status: status, Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(now),
	})
	ready := metav1.ConditionTrue
	for _, k := range []string{api.ConditionLaunched, api.ConditionRegistered, api.ConditionInitialized} {
		if !conditionTrue(nc, k) {
			ready = metav1.ConditionFalse
		}
	}
	if kind != api.ConditionReady {
		changed = meta.SetStatusCondition(&nc.Status.Conditions, metav1.Condition{
			Type: api.ConditionReady, Status: ready, Reason: string(ready), LastTransitionTime: metav1.NewTime(now),
		}) || changed
	}
	return changed
}

func hasTaint(taints []corev1.Taint, key string) bool {
	return slices.ContainsFunc(taints, func(t corev1.Taint) bool { return t.Key == key })
}

// setTaint adds t to the node (on) or removes every taint of t's key; it reports whether the node
// changed.
func setTaint(n *corev1.Node, t corev1.Taint, on bool) bool {
	switch has := hasTaint(n.Spec.Taints, t.Key); {
	case on && !has:
		n.Spec.Taints = append(n.Spec.Taints, t)
	case !on && has:
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(x corev1.Taint) bool { return x.Key == t.Key })
	default:
		return false
	}
	return true
}

func hasFinalizer(obj metav1.Object, f string) bool { return slices.Contains(obj.GetFinalizers(), f) }

// claimLaunched, claimRegistered and claimInitialized read the lifecycle conditions.
func claimLaunched(nc *api.NodeClaim) bool    { return conditionTrue(nc, api.ConditionLaunched) }
func claimRegistered(nc *api.NodeClaim) bool  { return conditionTrue(nc, api.ConditionRegistered) }
func claimInitialized(nc *api.NodeClaim) bool { return conditionTrue(nc, api.ConditionInitialized) }

// initializedAt is when the claim's Initialized condition turned true (zero if it has not).
func initializedAt(nc *api.NodeClaim) time.Time {
	if c := condition(nc, api.ConditionInitialized); c != nil && c.Status == metav1.ConditionTrue {
		return c.LastTransitionTime.Time
	}
	return time.Time{}
}
