package snapshot

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// bindPods sorts the pods into bound (by node name), nominated (by node name) and pending, and
// reports pods bound to a Node the objects lack, one issue per such Node, sorted by its name.
func (t *taker) bindPods() {
	t.bound = map[string][]*corev1.Pod{}
	t.nominated = map[string][]*corev1.Pod{}
	known := make(map[string]bool, len(t.objects.Nodes))
	for _, n := range t.objects.Nodes {
		known[n.Name] = true
	}
	// Room for every pod at once: `napkit plan` takes its snapshot while the collector marks the
	// manifests' garbage, and each regrowth of a slice of pointers then copies it through write
	// barriers (10,000 pending pods: a fifth of Take).
	t.Pending = make([]*corev1.Pod, 0, len(t.objects.Pods))
	for _, pod := range t.objects.Pods {
		switch {
		case pod.Spec.NodeName != "":
			t.bound[pod.Spec.NodeName] = append(t.bound[pod.Spec.NodeName], pod)
		case nominatedTo(pod, known) != "":
			t.nominated[pod.Status.NominatedNodeName] = append(t.nominated[pod.Status.NominatedNodeName], pod)
		case t.opts.PendingRule.Pending(withoutStaleNomination(pod)):
			t.Pending = append(t.Pending, pod)
		}
	}
	if len(t.Pending) == 0 {
		t.Pending = nil // as before: no pending pods is a nil list
	}
	var missing []string
	for name := range t.bound {
		if !known[name] {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	for _, name := range missing {
		pod := t.bound[name][0]
		t.issue(issue(fmt.Sprintf("Pod %s/%s", pod.Namespace, pod.Name), "spec.nodeName", "no Node %q", name))
	}
}

// nominatedTo is the Node an unbound pod is nominated to (status.nominatedNodeName, set by
// kube-scheduler for a preemption or by an autoscaler, KEP-5278) when that Node exists and the pod
// still waits for it: not being deleted, not finished, neither a DaemonSet's nor a mirror pod; else
// "". kube-scheduler keeps such a pod's room on that node from every pod of equal or lower
// priority, so the snapshot counts the pod there and not as pending.
func nominatedTo(pod *corev1.Pod, known map[string]bool) string {
	name := pod.Status.NominatedNodeName
	if name == "" || !known[name] || pod.DeletionTimestamp != nil || Terminal(pod) || DaemonPod(pod) || MirrorPod(pod) {
		return ""
	}
	return name
}

// withoutStaleNomination returns pod, or a shallow copy without its nomination when it names a
// Node that does not exist (deleted since): kube-scheduler ignores such a nomination, so the pod
// waits for a node like any other and must not be left out of the plan.
func withoutStaleNomination(pod *corev1.Pod) *corev1.Pod {
	if pod.Status.NominatedNodeName == "" {
		return pod
	}
	cp := *pod
	cp.Status.NominatedNodeName = ""
	return &cp
}

// Pending reports whether pod waits for a node: unbound, not nominated to a node, not being deleted,
// not finished, and neither a DaemonSet's pod (the DaemonSet controller places those) nor a mirror
// pod. With waitForScheduler, only once kube-scheduler has marked it Unschedulable.
func Pending(pod *corev1.Pod, waitForScheduler bool) bool {
	if pod.Spec.NodeName != "" || pod.Status.NominatedNodeName != "" || pod.DeletionTimestamp != nil ||
		Terminal(pod) || DaemonPod(pod) || MirrorPod(pod) {
		return false
	}
	if !waitForScheduler {
		return true
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodScheduled {
			return cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable
		}
	}
	return false
}

// PendingLive is Pending in a live cluster that does not wait for kube-scheduler's verdict: every
// unbound pod Pending counts, except one kube-scheduler holds back at a scheduling gate
// (spec.schedulingGates, or PodScheduled=False with reason SchedulingGated): such a pod is not
// schedulable yet whatever capacity exists, and kube-scheduler never marks it Unschedulable, which
// is why waiting for that mark left it alone.
func PendingLive(pod *corev1.Pod) bool {
	if !Pending(pod, false) || len(pod.Spec.SchedulingGates) > 0 {
		return false
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodScheduled {
			return cond.Reason != corev1.PodReasonSchedulingGated
		}
	}
	return true
}

// Terminal reports whether the pod has finished.
func Terminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// DaemonPod reports whether a DaemonSet controls the pod.
func DaemonPod(pod *corev1.Pod) bool {
	ref := metav1.GetControllerOf(pod)
	return ref != nil && ref.Kind == "DaemonSet"
}

// MirrorPod reports whether the pod is the API mirror of a static pod.
func MirrorPod(pod *corev1.Pod) bool {
	_, ok := pod.Annotations[corev1.MirrorPodAnnotationKey]
	return ok
}

// Reschedulable are the pods of nodes being deleted, as if pending (spec.nodeName cleared, on
// copies): what the provisioner must find a new home for while the drain runs. Pods being deleted,
// finished, DaemonSet and mirror pods stay behind.
func (s *Snapshot) Reschedulable() []*corev1.Pod {
	var out []*corev1.Pod
	for _, n := range s.Nodes {
		if n.Node.Node.DeletionTimestamp == nil {
			continue
		}
		for _, pod := range n.Pods {
			if pod.DeletionTimestamp == nil && !Terminal(pod) && !DaemonPod(pod) && !MirrorPod(pod) {
				moved := pod.DeepCopy()
				moved.Spec.NodeName = ""
				out = append(out, moved)
			}
		}
	}
	return out
}
