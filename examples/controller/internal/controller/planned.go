package controller

import (
	"maps"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/snapshot"
)

// plannedPods remembers where the plans put pending pods, so that a later batch counts a pod
// against the NodeClaim (or node) a plan already made room on, instead of planning it again.
//
// Why: kube-scheduler does not follow the plan. It binds pending pods to whichever nodes are
// initialized first, spread by its LeastAllocated scoring, so in a burst the pods a plan packed
// onto claim B often land on node A, and A's own pods are still pending when the next batch
// looks. Planned again from scratch, those pods met in-flight claims that looked empty and nodes
// that looked free, and the leftovers got new NodeClaims while the first plan's claims were still
// booting: 1,000 pods took 75 nodes where the plan needed 52 (docs/benchmarks.md). Karpenter
// does not do this; it re-plans every pending pod each batch. kube-scheduler's own answer,
// a status.nominatedNodeName set by the autoscaler (KEP-5278), is cleared by kube-scheduler
// v1.37's preemption step at the pod's next failed attempt (the e2e TestSchedulerNomination
// shows it), so the controller holds the plan itself while the node is coming, and nominates
// only as it registers (Config.NominatePods, NominatePolicy).
//
// A pod stays held while its target is coming: a claim in flight (or one just created that the
// caches do not show yet, for the grace after the plan), or a node that is registered but not
// initialized, and for a grace period (Config.PlannedPodGrace) after the node initialized
// or the plan was made, whichever is later, the time kube-scheduler needs to bind it; and only
// while it still fits the node's room (kube-scheduler may have filled it with other pods), no
// pod bound there excludes it by required anti-affinity (planned_conflict.go) and its
// DoNotSchedule spreads still leave it a place there (planned_spread.go). A pod bound,
// deleted or whose target is gone, deleting or failed is forgotten, and planned afresh if still
// pending.
type plannedPods struct {
	mu    sync.Mutex
	where map[string]plannedPod // by "namespace/name"
	// released lists, by reason, the pods the last hold stopped holding (for the debug log: a
	// pod pending long is either held, or planned again after one of these).
	released map[string][]string
	// replanned are the pods ("namespace/name") a hold has released at least once and that are
	// still pending (NominateReplanned nominates them).
	replanned map[string]bool
	// predicted are the pods ("namespace/name") a batch's replay chose to nominate
	// (NominatePredicted), while they stay held where that batch put them.
	predicted map[string]bool
}

// Reasons a held pod is released.
const (
	releaseTargetGone = "targetGone" // the claim or node is gone, deleting or failed
	releaseGraceOver  = "graceOver"  // its node initialized more than the grace ago
	releaseNoRoom     = "noRoom"     // kube-scheduler gave its room on the node to other pods
	// releaseAntiAffinity: kube-scheduler bound a pod to the node that the pod's required
	// anti-affinity (or the bound pod's) keeps it away from.
	releaseAntiAffinity = "antiAffinity"
	// releaseSpread: the pods of its DoNotSchedule topology spread bound elsewhere leave its
	// node's domain no place for it (planned_spread.go).
	releaseSpread = "spread"
)

// plannedPod is where a plan put a pod: a NodeClaim's or a Node's name, and when. unseen is set
// for a claim this controller has just created and no snapshot has shown yet: the informer
// delivers a create seconds later under a burst (8 s for a 10,000-pod burst's claims in the
// scale suite), and until then the claim is coming, not gone.
type plannedPod struct {
	target string
	at     time.Time
	unseen bool
}

func newPlannedPods() *plannedPods {
	return &plannedPods{where: map[string]plannedPod{}, replanned: map[string]bool{}, predicted: map[string]bool{}}
}

// markPredicted records the pods a batch's replay chose to nominate.
func (p *plannedPods) markPredicted(pods []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pod := range pods {
		p.predicted[pod] = true
	}
}

// wasPredicted reports whether pod ("namespace/name") is one its batch's replay chose to nominate
// and it is still held where that batch put it.
func (p *plannedPods) wasPredicted(pod string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.predicted[pod]
}

// wasReplanned reports whether a hold has released pod ("namespace/name") since it became pending.
func (p *plannedPods) wasReplanned(pod string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.replanned[pod]
}

// record remembers that a plan made at `at` put pods ("namespace/name") on target.
func (p *plannedPods) record(target string, pods []string, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pod := range pods {
		p.where[pod] = plannedPod{target: target, at: at}
	}
}

// recordCreated remembers that a plan made at `at` put pods on a NodeClaim the controller has just
// created, which the caches may not show yet.
func (p *plannedPods) recordCreated(claim string, pods []string, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pod := range pods {
		p.where[pod] = plannedPod{target: claim, at: at, unseen: true}
	}
}

// podsOn lists the pods ("namespace/name") planned on any of targets.
func (p *plannedPods) podsOn(targets ...string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for pod, r := range p.where {
		if slices.Contains(targets, r.target) {
			out = append(out, pod)
		}
	}
	slices.Sort(out)
	return out
}

// targets returns a copy of what is planned where: pod ("namespace/name") -> target.
func (p *plannedPods) targets() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]string, len(p.where))
	for pod, r := range p.where {
		out[pod] = r.target
	}
	return out
}

// targetOf is the target pod is planned on, if any.
func (p *plannedPods) targetOf(pod string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.where[pod]
	return r.target, ok
}

// recordPlan remembers the placements a plan made on existing nodes and in-flight claims (the
// new claims are recorded as they are created, under their new names).
func (p *plannedPods) recordPlan(plan *provisioner.Plan, at time.Time) {
	for _, placements := range [][]provisioner.NodePlacement{plan.ExistingNodes, plan.InFlightClaims} {
		for _, pl := range placements {
			p.record(pl.Name, pl.Pods, at)
		}
	}
}

// hold moves the pods of in.Pods that a plan put on a target still coming onto that target (an
// in-flight claim's Pods or an existing node's Pods), so the provisioner counts their room as
// taken, and returns how many it moved and the targets holding them (which the caller keeps
// nominated, or consolidation would take a node whose pods kube-scheduler has not bound yet for
// underutilized). Records of pods not held are dropped. A negative grace holds nothing (every
// pending pod is planned afresh, as Karpenter does).
func (p *plannedPods) hold(s *snapshot.Snapshot, in *provisioner.Input, grace time.Duration) (int, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if grace < 0 {
		clear(p.where)
	}
	p.forgetReplanned(in.Pods)
	if len(p.where) == 0 {
		return 0, nil
	}
	targets := heldTargets(s, in)
	pass := &holdPass{in: in, now: s.Now, grace: grace, room: map[int]map[corev1.ResourceName]int64{},
		selectors: map[*metav1.LabelSelector]labels.Selector{}}
	pass.spread = pass.spreadExcess(p.where, targets, in.Pods)
	kept := make(map[string]plannedPod, len(p.where))
	holding := map[string]bool{}
	pending := in.Pods[:0:0]
	p.released = map[string][]string{}
	for _, pod := range in.Pods {
		key := pod.Namespace + "/" + pod.Name
		r, ok := p.where[key]
		if !ok {
			delete(p.predicted, key) // its claim was not created: planned afresh
			pending = append(pending, pod)
			continue
		}
		t, coming := targets[r.target]
		if !coming && r.unseen && s.Now.Before(r.at.Add(grace)) {
			kept[key] = r // a claim just created that the caches do not show yet: not planned again
			continue
		}
		if why := pass.release(t, coming, r, pod); why != "" {
			p.released[why] = append(p.released[why], key+"@"+r.target)
			p.replanned[key] = true
			delete(p.predicted, key) // its replay's reason is gone with its target's room
			pending = append(pending, pod)
			continue
		}
		r.unseen = false
		kept[key] = r
		t.add(in, pod, !holding[r.target])
		holding[r.target] = true
	}
	p.where = kept
	held := len(in.Pods) - len(pending)
	in.Pods = pending
	return held, slices.Sorted(maps.Keys(holding))
}

// holdPass is one hold's state: the input the held pods are moved into, its time and grace, the
// room left per existing node as pods are held (by index into in.Nodes), and the anti-affinity
// selectors parsed so far (by the pod's own selector, which the cache shares for the pass).
type holdPass struct {
	in        *provisioner.Input
	now       time.Time
	grace     time.Duration
	room      map[int]map[corev1.ResourceName]int64
	selectors map[*metav1.LabelSelector]labels.Selector
	// spread are the held pods a DoNotSchedule spread keeps off their node (spreadExcess).
	spread map[string]bool
}

// forgetReplanned drops the replanned and predicted marks of pods no longer pending (bound or gone).
func (p *plannedPods) forgetReplanned(pending []*corev1.Pod) {
	p.replanned = stillPending(p.replanned, pending)
	p.predicted = stillPending(p.predicted, pending)
}

// stillPending is the part of marks naming pods of pending.
func stillPending(marks map[string]bool, pending []*corev1.Pod) map[string]bool {
	if len(marks) == 0 {
		return marks
	}
	still := make(map[string]bool, len(marks))
	for _, pod := range pending {
		if key := pod.Namespace + "/" + pod.Name; marks[key] {
			still[key] = true
		}
	}
	return still
}

// release says why a pod planned on t (coming: t is still there) is no longer held, or "".
func (h *holdPass) release(t heldTarget, coming bool, r plannedPod, pod *corev1.Pod) string {
	switch {
	case !coming:
		return releaseTargetGone
	case !t.holds(r.at, h.now, h.grace):
		return releaseGraceOver
	case h.conflicts(t, pod):
		return releaseAntiAffinity
	case h.spread[pod.Namespace+"/"+pod.Name]:
		return releaseSpread
	case !t.fits(h.in, h.room, pod):
		return releaseNoRoom
	}
	return ""
}

// takeReleased returns what the last hold released, by reason.
func (p *plannedPods) takeReleased() map[string][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.released
	p.released = nil
	return out
}

// heldTarget is a claim or node pods may be held on: an index into in.InFlight or in.Nodes.
type heldTarget struct {
	inFlight, node int // -1 when not that kind
	initialized    bool
	initializedAt  time.Time
}

// holds reports whether a pod planned on the target at `at` is still held at now.
func (t heldTarget) holds(at, now time.Time, grace time.Duration) bool {
	if t.inFlight >= 0 || !t.initialized {
		return true
	}
	since := at
	if t.initializedAt.After(since) {
		since = t.initializedAt
	}
	return now.Before(since.Add(grace))
}

// fits reports whether the pod still fits the target's room and takes that room if so. An
// in-flight claim's node is empty, so the plan's pods fit it; an existing node may have been
// given other pods by kube-scheduler meanwhile, and a pod that no longer fits its node is planned
// again at once rather than after the grace. Only resources are checked (not topology or
// affinity, which the grace covers). A node without allocatable (not reported yet) takes all.
func (t heldTarget) fits(in *provisioner.Input, room map[int]map[corev1.ResourceName]int64, pod *corev1.Pod) bool {
	if t.inFlight >= 0 {
		return true
	}
	left, ok := room[t.node]
	if !ok {
		left = freeOn(in.Nodes[t.node])
		room[t.node] = left
	}
	if left == nil {
		return true
	}
	req := provisioner.PodRequests(pod)
	for name, q := range req {
		if free, tracked := left[name]; tracked && q > free {
			return false
		}
	}
	for name, q := range req {
		if _, tracked := left[name]; tracked {
			left[name] -= q
		}
	}
	return true
}

// freeOn is the node's allocatable minus the requests of its pods still running, or nil when the
// node reports no allocatable.
func freeOn(n provisioner.ExistingNode) map[corev1.ResourceName]int64 {
	alloc := n.Node.Status.Allocatable
	if len(alloc) == 0 {
		return nil
	}
	left := make(map[corev1.ResourceName]int64, len(alloc))
	for name, q := range alloc {
		left[name] = provisioner.QuantityValue(name, q)
	}
	for _, pod := range n.Pods {
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		for name, q := range provisioner.PodRequests(pod) {
			if _, tracked := left[name]; tracked {
				left[name] -= q
			}
		}
	}
	return left
}

// add puts pod on the target. The first add to a target copies its list (the snapshot's own
// lists stay as they were); later ones append to that copy.
func (t heldTarget) add(in *provisioner.Input, pod *corev1.Pod, first bool) {
	var pods *[]*corev1.Pod
	if t.inFlight >= 0 {
		pods = &in.InFlight[t.inFlight].Pods
	} else {
		pods = &in.Nodes[t.node].Pods
	}
	if first {
		*pods = slices.Clip(*pods)
	}
	*pods = append(*pods, pod)
}

// heldTargets indexes the claims in flight by name, and the existing nodes of in (registered,
// not deleting) by their own name and by their NodeClaim's.
func heldTargets(s *snapshot.Snapshot, in *provisioner.Input) map[string]heldTarget {
	out := make(map[string]heldTarget, len(in.InFlight)+2*len(in.Nodes))
	for i, f := range in.InFlight {
		out[f.Name] = heldTarget{inFlight: i, node: -1}
	}
	for j, n := range in.Nodes {
		t := heldTarget{inFlight: -1, node: j, initialized: n.Initialized}
		sn, ok := s.Node(n.Node.Name)
		if ok {
			t.initializedAt = sn.InitializedAt
		}
		out[n.Node.Name] = t
		if ok && sn.NodeClaim != nil {
			out[sn.NodeClaim.Name] = t
		}
	}
	return out
}
