package controller

import (
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/tools/cache"

	"github.com/napkit/napkit/consolidation"
)

// DefaultConsolidatedRecheck is how long a disruption pass's "nothing to consolidate" is trusted
// while nothing changes: Karpenter's cluster state looks again at least every 5 minutes
// (ConsolidationState, pkg/controllers/state/cluster.go), for what no event shows (an instance
// type's price or availability).
const DefaultConsolidatedRecheck = 5 * time.Minute

// consolidatedMemo is Karpenter's "consolidated" mark: after a disruption pass whose Underutilized
// method found nothing, and weighed every candidate (consolidation.Stats.UnderutilizedBudgetBound
// false; napkit's test, narrower than Karpenter's, see there), the next passes
// skip that method (consolidation.Options.SkipUnderutilized), the costliest part of a pass, until
// something changes that could make a consolidation possible: a Node or NodeClaim added, removed
// or changed (a Node's status heartbeat is not a change), a pod bound, finished or deleted, a
// NodePool, AKSNodeClass or PodDisruptionBudget changed; or a node of the pass becomes a
// candidate (its consolidateAfter or a nomination ends: the pass's wake time); or the recheck
// period passes. Karpenter marks the same events (state.Cluster.MarkUnconsolidated). At 2,027
// nodes an idle controller spent 0.65 cores re-deciding an unchanged cluster every interval
// (docs/benchmarks.md, issue 18). The zero value is ready.
type consolidatedMemo struct {
	mu      sync.Mutex
	changes uint64    // the count of changes seen
	marked  bool      // a pass found nothing at changes == at
	at      uint64    // changes when the mark was made
	until   time.Time // the mark lapses then
}

// changed records an event that may make a consolidation possible.
func (m *consolidatedMemo) changed() {
	m.mu.Lock()
	m.changes++
	m.mu.Unlock()
}

// seen is the count of changes, read before a decision's snapshot: a change after the read
// clears whatever mark the decision makes.
func (m *consolidatedMemo) seen() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changes
}

// holds reports whether a decision that read changes at now may skip the Underutilized method.
func (m *consolidatedMemo) holds(changes uint64, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.marked && m.at == changes && m.changes == changes && now.Before(m.until)
}

// record keeps what a full decision (not skipping) found: a mark when its plan has no
// Underutilized command, none deferred for a PDB, and no budget held a candidate back, valid for
// recheck or until wake (the earliest a node of its snapshot may become a candidate), whichever
// is sooner; otherwise no mark.
func (m *consolidatedMemo) record(changes uint64, plan *consolidation.Plan, now, wake time.Time, recheck time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.marked = recheck > 0 && !plan.Stats.UnderutilizedBudgetBound && len(plan.Deferred) == 0 && !slices.ContainsFunc(plan.Commands, func(c consolidation.Command) bool {
		return c.Reason == consolidation.ReasonUnderutilized
	})
	m.at, m.until = changes, now.Add(recheck)
	if !wake.IsZero() && wake.Before(m.until) {
		m.until = wake
	}
}

// addConsolidatedHandlers marks every change of the NodePools, AKSNodeClasses and PDBs.
func (c *Controller) addConsolidatedHandlers() error {
	mark := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.consolidated.changed() },
		UpdateFunc: func(any, any) { c.consolidated.changed() },
		DeleteFunc: func(any) { c.consolidated.changed() },
	}
	var errs []error
	for _, inf := range []cache.SharedIndexInformer{c.inf.pools, c.inf.classes, c.inf.pdbs} {
		_, err := inf.AddEventHandler(mark)
		errs = append(errs, err)
	}
	return errors.Join(errs...) // addHandlers wraps it
}

// nodeChangeMatters reports whether a Node update may make a consolidation possible: anything but
// its status heartbeats (conditions' times, images, daemon endpoints) and its metadata's
// bookkeeping. Karpenter's own test is narrower (initialized, marked for deletion).
func nodeChangeMatters(old, node *corev1.Node) bool {
	if old == nil || node == nil {
		return true
	}
	return !maps.Equal(old.Labels, node.Labels) || !maps.Equal(old.Annotations, node.Annotations) ||
		!equality.Semantic.DeepEqual(old.Spec, node.Spec) ||
		(old.DeletionTimestamp == nil) != (node.DeletionTimestamp == nil) ||
		!equality.Semantic.DeepEqual(old.Status.Allocatable, node.Status.Allocatable) ||
		!slices.Equal(conditionStatuses(old), conditionStatuses(node))
}

// conditionStatuses lists a Node's conditions as type=status, without their times.
func conditionStatuses(node *corev1.Node) []string {
	out := make([]string, 0, len(node.Status.Conditions))
	for _, cond := range node.Status.Conditions {
		out = append(out, string(cond.Type)+"="+string(cond.Status))
	}
	return out
}
