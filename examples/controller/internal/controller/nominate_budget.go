package controller

import (
	"cmp"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// DefaultNominateMaxUnbound is Config.NominateMaxUnbound's default. At 1,000 pods every nomination
// of a burst was outstanding at once without slowing kube-scheduler (7.8-9.1 CPU-s per scale-up);
// at 10,000 pods, with ~8,000 outstanding, each attempt added every node's nominated pods before
// filtering it and kube-scheduler, CPU-bound, bound ~3 pods/s (docs/benchmarks.md, issue 18).
const DefaultNominateMaxUnbound = 1000

// DefaultNominateMaxPending is Config.NominateMaxPending's default: the largest burst measured to
// gain from nominations (1,000 pods); a 10,000-pod burst lost twice its time to them.
const DefaultNominateMaxPending = 1000

// nominationAllowance is the budget of unbound nominations one registration or one provisioning
// pass spends across its targets. It is counted from the pod cache (a pass over every pod) at its
// first use, since most passes nominate nothing, and only once: counted again per target, a
// provisioning pass at the bound with 500 registered targets took 314 ms at 10,000 pods
// (BenchmarkRenominateAtBound). The caller holds nominateMu from counting to spending.
type nominationAllowance struct {
	c       *Controller
	now     time.Time
	left    int
	counted bool
}

// available reports whether one more pod may be nominated.
func (a *nominationAllowance) available() bool {
	if !a.counted {
		a.left, a.counted = a.c.nominationBudget(a.now), true
	}
	return a.left > 0
}

// spend uses one nomination of the allowance.
func (a *nominationAllowance) spend() { a.left-- }

// nominationBudget is how many more pods may be nominated at now: none while more pods than
// Config.NominateMaxPending are pending (unbound and not deleting), else Config.NominateMaxUnbound
// less the pods nominated and not bound yet. Those are the unbound pods of the cache with a
// status.nominatedNodeName (whoever set it: kube-scheduler's nominator weighs them all), and the
// pods patched within renominateAfter that the cache may not show yet. A negative limit is no bound.
func (c *Controller) nominationBudget(now time.Time) int {
	limit, maxPending := c.cfg.NominateMaxUnbound, c.cfg.NominateMaxPending
	if limit < 0 && maxPending < 0 {
		return int(^uint(0) >> 1)
	}
	recent := c.nominations.recentPods(now)
	pending, nominated := 0, 0
	for _, pod := range typed[corev1.Pod](c.inf.pods.GetStore().List()) {
		if pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil {
			continue
		}
		pending++
		if pod.Status.NominatedNodeName != "" || recent[pod.Namespace+"/"+pod.Name] {
			nominated++
		}
	}
	switch {
	case maxPending >= 0 && pending > maxPending:
		return 0
	case limit < 0:
		return int(^uint(0) >> 1)
	}
	return max(limit-nominated, 0)
}

// nominationOrder sorts the pods to nominate to node so that, when the budget cannot take them all,
// the ones other pods' placement can strand (constrained) go first; name order otherwise, so the
// choice is reproducible.
func nominationOrder(pods []*corev1.Pod, node *corev1.Node) {
	slices.SortStableFunc(pods, func(a, b *corev1.Pod) int {
		ca, cb := constrained(a, node), constrained(b, node)
		if ca != cb {
			if ca {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
}
