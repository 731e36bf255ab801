package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/provisioner"
)

// NominatePolicy says which pending pods the controller nominates (status.nominatedNodeName,
// KEP-5278) to the node a plan put them on.
//
// Why: kube-scheduler does not follow the plan. Its LeastAllocated scoring spreads a burst over
// every new node, so the pods a plan packed onto a node find it filled by others and wait for a
// later NodeClaim (docs/benchmarks.md, issue 18). kube-scheduler v1.37 counts a nominated pod's
// requests on its node against every pod of equal or lower priority and tries that node first
// (the nominator; evaluateNominatedNode), but its preemption step clears a nomination at the
// pod's next failed attempt (e2e TestSchedulerNomination). So the controller nominates a planned
// pod only when the pod's node is about to take pods: at registration, before the
// karpenter.sh/unregistered taint goes, whose removal is the event that makes kube-scheduler try
// the pod again (e2e TestSchedulerNominationAtRegistration).
type NominatePolicy string

const (
	// NominateOff writes no nominations (and needs no patch on pods/status).
	NominateOff NominatePolicy = "off"
	// NominateAll nominates every pending pod a plan put on the node: one pod status patch each.
	NominateAll NominatePolicy = "all"
	// NominateConstrained nominates only the pods hard to place elsewhere (constrained): required
	// pod anti-affinity, a DoNotSchedule topology spread, or requests of at least a quarter of
	// the node's allocatable cpu or memory. The small pods fill whatever room is left.
	NominateConstrained NominatePolicy = "constrained"
	// NominateReplanned nominates only the pods planned again after the hold released them
	// (plannedPods.replanned): kube-scheduler gave their room or their node away once already,
	// and without a nomination it gives away the next one too (a sibling of a one-per-host pod,
	// or any pod LeastAllocated sends to the emptiest node, takes the node planned for it), one
	// NodeClaim cycle each time. The burst's first placements, which kube-scheduler mostly
	// keeps, cost no write.
	NominateReplanned NominatePolicy = "replanned"
	// NominatePredicted nominates only the pods kube-scheduler would strand: each batch's new
	// claims are replayed (schedreplay.NominationsFor) and the pods its spread would leave
	// without a node are nominated to their planned node, until the replay strands none; the
	// batch's nodes are released together (batchrelease.go), as the replay assumes. A few
	// writes per batch instead of one per pod. The default: at 1,000 pods it met the issue's
	// scale-up targets as a median of ten runs where off met none (docs/benchmarks.md, sixteenth
	// session); the runs were bimodal (nine of sixteen within in the seventeenth session), the
	// slow mode's tail mostly zone-spread replicas that the hold now releases at once
	// (planned_spread.go; eighteenth session).
	NominatePredicted NominatePolicy = "predicted"
)

// nominatePolicies lists the valid policies, for errors (a function, so no caller can change the list).
func nominatePolicies() []NominatePolicy {
	return []NominatePolicy{NominateOff, NominateAll, NominateConstrained, NominateReplanned, NominatePredicted}
}

// ParseNominatePolicy reads a policy name; "" is the default, NominatePredicted.
func ParseNominatePolicy(s string) (NominatePolicy, error) {
	if s == "" {
		return NominatePredicted, nil
	}
	policies := nominatePolicies()
	for _, p := range policies {
		if string(p) == s {
			return p, nil
		}
	}
	names := make([]string, len(policies))
	for i, p := range policies {
		names[i] = string(p)
	}
	return "", fmt.Errorf("nominate pods policy %q: want one of %s", s, strings.Join(names, ", "))
}

// maxNominations bounds the nominations of one pod to one node: the registration's, and one more
// when kube-scheduler cleared it (a failed attempt that raced the taint's removal). A pod that
// fails again does not fit there, and the hold releases it (noRoom) to be planned afresh.
const maxNominations = 2

// renominateAfter is how long after a nomination the same pod may be nominated to the same node
// again: until the informer shows the patch, the pod still looks un-nominated, and a provisioning
// pass or a second registration pass (the claim's reconcile runs again when the node's update
// arrives) would write it twice.
const renominateAfter = 3 * time.Second

// nominateWorkers bounds the pod status patches in flight.
const nominateWorkers = 16

// podNominations counts the nominations written, per pod and node.
type podNominations struct {
	mu   sync.Mutex
	sent map[string]nominated // by "namespace/name@node"
}

// nominated is how often a pod was nominated to a node, the last time when.
type nominated struct {
	count int
	last  time.Time
}

func newPodNominations() *podNominations { return &podNominations{sent: map[string]nominated{}} }

// take reports whether pod may be nominated to node at now, having been so fewer than limit times
// and not within renominateAfter, and counts it if so.
func (n *podNominations) take(pod, node string, limit int, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	key := pod + "@" + node
	s := n.sent[key]
	if s.count >= limit || (s.count > 0 && now.Sub(s.last) < renominateAfter) {
		return false
	}
	n.sent[key] = nominated{count: s.count + 1, last: now}
	return true
}

// recentPods are the pods ("namespace/name") nominated (to any node) within renominateAfter of
// now: the pod cache may not show those patches yet.
func (n *podNominations) recentPods(now time.Time) map[string]bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := map[string]bool{}
	for key, s := range n.sent {
		if now.Sub(s.last) < renominateAfter {
			pod, _, _ := strings.Cut(key, "@")
			out[pod] = true
		}
	}
	return out
}

// forget drops the counts of pods no longer pending.
func (n *podNominations) forget(keep func(pod string) bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for key := range n.sent {
		if pod, _, _ := strings.Cut(key, "@"); !keep(pod) {
			delete(n.sent, key)
		}
	}
}

// nominateOnRegistration nominates the pending pods planned on the claim or on its node to the
// node. register calls it before the write that removes karpenter.sh/unregistered; a failed patch
// is logged, not returned: the node registers either way.
func (c *Controller) nominateOnRegistration(ctx context.Context, nc *api.NodeClaim, node *corev1.Node) {
	if c.cfg.NominatePods == NominateOff {
		return
	}
	keys := c.planned.podsOn(nc.Name, node.Name)
	c.nominateMu.Lock()
	pods := c.choosePods(keys, node, 1, &nominationAllowance{c: c, now: c.now()})
	c.nominateMu.Unlock()
	// Patched outside the lock: registrations of a batch released together run at once.
	if err := c.patchNominations(ctx, pods, node.Name); err != nil {
		c.log.Warn("nominating planned pods failed", "nodeClaim", nc.Name, "node", node.Name, "error", err)
	}
	if len(pods) > 0 {
		c.log.Debug("nominated planned pods", "nodeClaim", nc.Name, "node", node.Name, "pods", len(pods), "planned", len(keys))
	}
}

// renominate nominates the held pods whose target is a registered node and who lack its
// nomination: pods a plan put on an existing node, and pods whose nomination kube-scheduler
// cleared (at most maxNominations per pod and node). The provisioning pass calls it.
func (c *Controller) renominate(ctx context.Context) {
	if c.cfg.NominatePods == NominateOff {
		return
	}
	byTarget := map[string][]string{}
	for pod, target := range c.planned.targets() {
		byTarget[target] = append(byTarget[target], pod)
	}
	registered := c.registeredNodes()
	total := 0
	var errs []error
	chosen := map[*corev1.Node][]*corev1.Pod{}
	c.nominateMu.Lock()
	allowance := &nominationAllowance{c: c, now: c.now()}
	for target, keys := range byTarget {
		if node := registered[target]; node != nil {
			chosen[node] = append(chosen[node], c.choosePods(keys, node, maxNominations, allowance)...)
		}
	}
	c.nominateMu.Unlock()
	for node, pods := range chosen {
		total += len(pods)
		errs = append(errs, c.patchNominations(ctx, pods, node.Name))
	}
	if err := errors.Join(errs...); err != nil {
		c.log.Warn("nominating held pods failed", "error", err)
	}
	if total > 0 {
		c.log.Debug("nominated held pods", "pods", total)
	}
	c.nominations.forget(func(pod string) bool { _, held := c.planned.targetOf(pod); return held })
}

// registeredNodes indexes the nodes pods may land on (registered, karpenter.sh/unregistered gone,
// not deleting) by their name and by their NodeClaim's (the owner registration sets), the two
// names a plan's target has. From the typed node cache: resolving each target through its
// NodeClaim would decode one claim per target each pass (BenchmarkRenominate).
func (c *Controller) registeredNodes() map[string]*corev1.Node {
	out := map[string]*corev1.Node{}
	for _, node := range typed[corev1.Node](c.inf.nodes.GetStore().List()) {
		if node.Labels[api.LabelNodeRegistered] != "true" || node.DeletionTimestamp != nil ||
			hasTaint(node.Spec.Taints, api.TaintKeyUnregistered) {
			continue
		}
		out[node.Name] = node
		for _, owner := range node.OwnerReferences {
			if owner.Kind == api.KindNodeClaim {
				out[owner.Name] = node
			}
		}
	}
	return out
}

// choosePods picks, of keys, the pods to nominate to node: pending, chosen by the policy, not
// nominated there already and nominated there fewer than limit times (podNominations.take, which
// counts them), as many as the allowance of unbound nominations still has (constrained pods
// first). A pod the allowance left out stays held, and a later provisioning pass nominates it
// (renominate) once kube-scheduler has bound others. The caller holds nominateMu: two
// registrations counting the same budget would both spend it; the patches (patchNominations)
// need not hold it.
func (c *Controller) choosePods(keys []string, node *corev1.Node, limit int, allowance *nominationAllowance) []*corev1.Pod {
	now := c.now()
	var pods []*corev1.Pod
	for _, key := range keys {
		obj, ok, _ := c.inf.pods.GetStore().GetByKey(key)
		pod, _ := obj.(*corev1.Pod)
		if !ok || pod == nil || pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil ||
			pod.Status.NominatedNodeName == node.Name || !c.nominates(pod, node) {
			continue
		}
		pods = append(pods, pod)
	}
	nominationOrder(pods, node)
	chosen := pods[:0]
	for i, pod := range pods {
		if !allowance.available() {
			c.log.Debug("nominations deferred: the unbound nominations are at their limit, or too many pods are pending",
				"node", node.Name, "deferred", len(pods)-i, "limit", c.cfg.NominateMaxUnbound, "maxPending", c.cfg.NominateMaxPending)
			break
		}
		if c.nominations.take(pod.Namespace+"/"+pod.Name, node.Name, limit, now) {
			chosen = append(chosen, pod)
			allowance.spend()
		}
	}
	return chosen
}

// patchNominations writes status.nominatedNodeName = node on the pods, nominateWorkers at a time.
// A pod gone or bound meanwhile is not an error.
func (c *Controller) patchNominations(ctx context.Context, pods []*corev1.Pod, node string) error {
	errs := make([]error, len(pods))
	var g errgroup.Group
	g.SetLimit(nominateWorkers)
	for i, pod := range pods {
		g.Go(func() error {
			errs[i] = c.patchNomination(ctx, pod, node)
			return nil
		})
	}
	_ = g.Wait() // errors are kept per pod
	return errors.Join(errs...)
}

// patchNomination writes the pod's status.nominatedNodeName (pods/status, merge patch).
func (c *Controller) patchNomination(ctx context.Context, pod *corev1.Pod, node string) error {
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"nominatedNodeName": node}})
	if err != nil {
		return fmt.Errorf("nominate pod %s/%s to %s: %w", pod.Namespace, pod.Name, node, err)
	}
	_, err = c.cfg.Kube.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch,
		metav1.PatchOptions{}, "status")
	if apierrors.IsNotFound(err) || boundMeanwhile(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("nominate pod %s/%s to %s: %w", pod.Namespace, pod.Name, node, err)
	}
	return nil
}

// boundMeanwhile reports whether err is the API server refusing a nomination because kube-scheduler
// bound the pod after the cache was read ("status.nominatedNodeName: Forbidden: may not be set on
// pods that are already bound to a node"): the pod needs no nomination any more.
func boundMeanwhile(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return false
	}
	for _, cause := range status.Status().Details.Causes {
		if cause.Field == "status.nominatedNodeName" && cause.Type == metav1.CauseType(field.ErrorTypeForbidden) {
			return true
		}
	}
	return false
}

// nominates reports whether the controller's policy nominates pod to node.
func (c *Controller) nominates(pod *corev1.Pod, node *corev1.Node) bool {
	switch c.cfg.NominatePods {
	case NominateReplanned:
		return c.planned.wasReplanned(pod.Namespace + "/" + pod.Name)
	case NominatePredicted:
		return c.planned.wasPredicted(pod.Namespace + "/" + pod.Name)
	}
	return c.cfg.NominatePods.selects(pod, node)
}

// selects reports whether the policy nominates pod to node (for NominateReplanned and
// NominatePredicted, which need the hold's memory, see Controller.nominates).
func (p NominatePolicy) selects(pod *corev1.Pod, node *corev1.Node) bool {
	switch p {
	case NominateAll:
		return true
	case NominateConstrained:
		return constrained(pod, node)
	}
	return false
}

// constrained: pods that other pods' placement can strand. Required anti-affinity and a
// DoNotSchedule spread exclude most nodes; a pod of a quarter of a node fits few of the holes
// LeastAllocated leaves.
func constrained(pod *corev1.Pod, node *corev1.Node) bool {
	if a := pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil &&
		len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
		return true
	}
	for _, tsc := range pod.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable == corev1.DoNotSchedule {
			return true
		}
	}
	req := provisioner.PodRequests(pod)
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		alloc, ok := node.Status.Allocatable[name]
		if !ok {
			continue
		}
		if a := provisioner.QuantityValue(name, alloc); a > 0 && 4*req[name] >= a {
			return true
		}
	}
	return false
}
