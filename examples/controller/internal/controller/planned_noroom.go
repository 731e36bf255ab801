package controller

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// A held pod whose node kube-scheduler has filled with other pods (releaseNoRoom) is not
// always stranded. In a burst kube-scheduler binds at its client's pace (50 requests/s), so
// bound pods trail its decisions by seconds: a pod it has already placed elsewhere, or not yet
// looked at since the node became usable, looks stranded to a hold that judges room from bound
// pods. Planned again at once, such pods met room the plan had already given to others and got
// NodeClaims they never used (docs/benchmarks.md, issue 18, twenty-first session: 50 and 64
// pods released noRoom in runs where kube-scheduler refused 3 and 2). When kube-scheduler does
// refuse a pod it writes the pod's PodScheduled condition (a new message each time the nodes'
// verdicts change), which moves the pod's resourceVersion past its node's. So a pod without
// room is planned again at once if it has been written since both its node's last write and
// its first hold, and otherwise left out of passes until it is (or NoRoomWait passes).
//
// Only pods planned onto a NodeClaim wait: those of a burst, planned before the node came, that
// kube-scheduler reaches at its pace once the node is usable. A pod planned onto a node already
// there was planned after kube-scheduler's look at the cluster (a plan follows the pod's
// creation by a batch window); the room it lost there went to pods kube-scheduler had placed
// before the plan, and a refusal it already wrote is not written again while its message stays
// the same, so waiting would only delay a pod that needs a new node (the churn's).

// awaitsRefusal reports whether a held pod without room on its node t stays out of this pass,
// neither held nor planned, waiting for kube-scheduler's verdict; r records when it started.
func (h *holdPass) awaitsRefusal(r *plannedPod, t heldTarget, pod *corev1.Pod) bool {
	if h.noRoomWait <= 0 || t.node < 0 || r.target == h.in.Nodes[t.node].Node.Name {
		return false // planned onto the node itself, not onto the claim it came from
	}
	if r.noRoomSince.IsZero() {
		node := h.in.Nodes[t.node].Node.ResourceVersion
		if writtenAfter(pod.ResourceVersion, node) && writtenAfter(pod.ResourceVersion, r.heldVersion) {
			return false // refused since the node was last written and since it was held
		}
		r.noRoomSince, r.noRoomVersion = h.now, pod.ResourceVersion
		return true
	}
	return pod.ResourceVersion == r.noRoomVersion && h.now.Before(r.noRoomSince.Add(h.noRoomWait))
}

// writtenAfter reports whether resourceVersion v is newer than other. kube-apiserver's are etcd
// revisions, numbers that grow with every write; when either is not a number (or empty) v counts
// as newer, so the pod is planned again at once, as without the wait.
func writtenAfter(v, other string) bool {
	x, errV := strconv.ParseUint(v, 10, 64)
	y, errOther := strconv.ParseUint(other, 10, 64)
	return errV != nil || errOther != nil || x > y
}

// awaitingPods lists the pods ("namespace/name@target") the last hold left out awaiting
// kube-scheduler's refusal.
func (p *plannedPods) awaitingPods() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.awaiting)
}
