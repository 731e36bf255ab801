package controller

import (
	"context"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
)

// updateConsolidatable keeps each initialized claim's Consolidatable condition and
// lastPodEventTime current, so `kubectl get nodeclaims` shows what consolidation sees.
func (c *Controller) updateConsolidatable(ctx context.Context, s *clusterSnapshot) {
	for _, nc := range s.claims {
		if ctx.Err() != nil {
			// Shutting down: every write would fail and log; at 2,322 claims that took 3.4 s of
			// the controller's stop in the scale suite (docs/benchmarks.md, issue 18).
			return
		}
		pool, ok := s.Pool(nc.Labels[api.LabelNodePool])
		if !ok || nc.DeletionTimestamp != nil || !claimInitialized(nc) {
			continue
		}
		lastEvent := c.state.lastPodEventAt(nc.Status.NodeName)
		status, _ := consolidatable(pool.NodePool, nc, lastEvent, s.Now)
		stale := lastPodEventStale(nc.Status.LastPodEventTime.Time, lastEvent, s.Now)
		if !stale && consolidatableShown(nc) == (status == metav1.ConditionTrue) {
			continue
		}
		err := c.updateClaimStatus(ctx, nc.Name, func(nc *api.NodeClaim) bool {
			if stale {
				nc.Status.LastPodEventTime = metav1.NewTime(lastEvent)
			}
			return showConsolidatable(nc, status == metav1.ConditionTrue, s.Now) || stale
		})
		if err != nil {
			c.log.Warn("updating Consolidatable failed", "nodeClaim", nc.Name, "error", err)
		}
	}
}

// lastPodEventDedupe is how long a recorded lastPodEventTime stands before a newer pod event
// replaces it: Karpenter's dedupeTimeout (kubernetes-sigs/karpenter
// pkg/controllers/nodeclaim/podevents/controller.go), which bounds the status writes of a claim
// whose pods keep landing during a burst. Decisions do not read the lag: consolidateAfter counts
// from the latest of the recorded time and the in-memory one (consolidatableAt).
const lastPodEventDedupe = 10 * time.Second

// lastPodEventStale reports whether the recorded lastPodEventTime should be replaced by lastEvent:
// the event is newer (past the field's one-second precision) and the record is at least
// lastPodEventDedupe old.
func lastPodEventStale(recorded, lastEvent, now time.Time) bool {
	return lastEvent.After(recorded.Add(time.Second)) && now.Sub(recorded) >= lastPodEventDedupe
}

// consolidatable is Karpenter's rule: consolidateAfter has passed since the last pod event, or
// since initialization when no pod came or went.
func consolidatable(pool *api.NodePool, nc *api.NodeClaim, lastEvent, now time.Time) (metav1.ConditionStatus, string) {
	at, never := consolidatableAt(pool, nc, lastEvent)
	switch {
	case never:
		return metav1.ConditionFalse, "consolidateAfter is Never"
	case now.Before(at):
		return metav1.ConditionFalse, "consolidateAfter has not passed since the last pod event"
	}
	return metav1.ConditionTrue, ""
}

// consolidatableAt is when the claim's consolidateAfter ends: after the latest of its
// initialization, its recorded last pod event and lastEvent; never when consolidateAfter is Never.
func consolidatableAt(pool *api.NodePool, nc *api.NodeClaim, lastEvent time.Time) (at time.Time, never bool) {
	after := pool.Spec.Disruption.ConsolidateAfter
	if after.IsNever() {
		return time.Time{}, true
	}
	since := initializedAt(nc)
	if nc.Status.LastPodEventTime.After(since) {
		since = nc.Status.LastPodEventTime.Time
	}
	if lastEvent.After(since) {
		since = lastEvent
	}
	if after.Duration != nil {
		since = since.Add(*after.Duration)
	}
	return since, false
}

// markDrifted sets Drifted on the claims of nodes the pass found drifted, with the drift kind.
func (c *Controller) markDrifted(ctx context.Context, plan *consolidation.Plan) {
	for _, cmd := range plan.Commands {
		if cmd.Reason != consolidation.ReasonDrifted {
			continue
		}
		for _, name := range cmd.Nodes {
			node := c.node(name)
			if node == nil {
				continue
			}
			nc := c.claimFor(node.Spec.ProviderID)
			if nc == nil || conditionTrue(nc, api.ConditionDrifted) {
				continue
			}
			reason := cmd.Detail
			if reason == "" {
				reason = string(consolidation.ReasonDrifted)
			}
			err := c.updateClaimStatus(ctx, nc.Name, func(nc *api.NodeClaim) bool {
				return setCondition(nc, api.ConditionDrifted, metav1.ConditionTrue, reason, strings.Join(cmd.Changed, "; "), c.now())
			})
			if err != nil {
				c.log.Warn("marking Drifted failed", "nodeClaim", nc.Name, "error", err)
			}
		}
	}
}

// consolidatableShown reports whether the claim carries Consolidatable=True.
func consolidatableShown(nc *api.NodeClaim) bool {
	c := condition(nc, api.ConditionConsolidatable)
	return c != nil && c.Status == metav1.ConditionTrue
}

// showConsolidatable sets Consolidatable=True, or removes the condition, as Karpenter does
// (pkg/controllers/nodeclaim/disruption/consolidation.go clears it rather than setting it False):
// a claim within consolidateAfter then costs no write, where a False condition cost one status
// update per launched node (docs/benchmarks.md, issue 18, writes per NodeClaim). It reports a change.
func showConsolidatable(nc *api.NodeClaim, yes bool, now time.Time) bool {
	if yes {
		return setCondition(nc, api.ConditionConsolidatable, metav1.ConditionTrue, string(metav1.ConditionTrue), "", now)
	}
	return meta.RemoveStatusCondition(&nc.Status.Conditions, api.ConditionConsolidatable)
}
