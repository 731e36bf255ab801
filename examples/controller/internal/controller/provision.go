package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

// provisionLoop plans a batch of pending pods each time a batch window closes. While nothing
// triggers it, it re-triggers the pods still pending every BatchMax (Karpenter requeues them every
// 10 s), so a pod that a failed launch left behind is planned again.
func (c *Controller) provisionLoop(ctx context.Context) {
	for ctx.Err() == nil {
		if !c.batcher.Wait(ctx, c.cfg.BatchMax) {
			c.retriggerPending()
			continue
		}
		if err := c.provision(ctx); err != nil {
			c.log.Error("provisioning failed", "error", err)
		}
	}
}

func (c *Controller) retriggerPending() {
	for _, pod := range c.allPods() {
		if c.pending(pod) {
			c.batcher.Trigger(string(pod.UID))
		}
	}
}

// recordReleased counts and logs (at debug) the pods the pass's hold let go, by reason.
func (c *Controller) recordReleased(ctx context.Context, released map[string][]string) {
	for why, pods := range released {
		c.metrics.plannedReleased.WithLabelValues(why).Add(float64(len(pods)))
	}
	if len(released) > 0 && c.log.Enabled(ctx, slog.LevelDebug) {
		c.log.Debug("released held pods", "byReason", released)
	}
}

// provision runs one pass: snapshot, plan, NodeClaims. Launching is the claim reconciler's job,
// so a claim created here and a claim found after a restart launch the same way.
func (c *Controller) provision(ctx context.Context) error {
	s := c.takeSnapshot()
	opts := c.cfg.Provisioner
	opts.Seed = c.cfg.Seed
	in := s.ProvisionerInput(opts)
	held, holding := c.planned.hold(s.Snapshot, &in, c.cfg.PlannedPodGrace)
	c.nominateNames(holding, s.Now)
	c.recordReleased(ctx, c.planned.takeReleased())
	pods := in.Pods
	if len(pods) == 0 || len(in.NodePools) == 0 {
		return nil
	}
	start := time.Now()
	plan, err := provisioner.Solve(in)
	c.metrics.schedulingDuration.Observe(time.Since(start).Seconds())
	if err != nil {
		return fmt.Errorf("plan %d pods: %w", len(pods), err)
	}
	c.log.Info("planned", "pods", len(pods), "heldForEarlierPlans", held, "newNodeClaims", len(plan.NodeClaims),
		"unschedulable", len(plan.Unschedulable), "pricePerHour", plan.Cost.PricePerHour, "solveMillis", plan.Stats.SolveMillis)
	var reserve []provisioner.NodeClaim
	if c.cfg.PlanForScheduler && len(plan.NodeClaims) > 0 {
		// A failed replay leaves the plan as Solve made it: the orphans are then found a batch later.
		if reserve, err = c.coverOrphans(in, plan); err != nil {
			c.log.Error("planning for kube-scheduler's placement failed", "error", err)
		}
	}
	var predicted []string
	gathering := c.nominatesBatch(len(pods) + held) // the pending pods nominationBudget will count, the held ones too
	if gathering && c.cfg.NominatePods == NominatePredicted && len(plan.NodeClaims) > 0 {
		// A failed replay leaves the plan as Solve made it, with nothing to nominate.
		if predicted, err = c.predictNominations(in, plan); err != nil {
			c.log.Error("predicting kube-scheduler's placement failed", "error", err)
		}
	}
	c.nominate(plan, s.Now)
	c.planned.recordPlan(plan, s.Now)
	c.renominate(ctx)
	c.debugPlacements(ctx, plan)
	c.reportUnschedulable(ctx, plan, pods)
	names, err := c.createClaims(ctx, s, plan.NodeClaims, "provisioning")
	c.planned.markPredicted(predicted)
	if gathering {
		c.mates.add(names)
	}
	if len(reserve) == 0 {
		return err
	}
	reserves, errReserve := c.createClaims(ctx, s, reserve, "provisioning")
	orphans := 0
	for _, nc := range reserve {
		orphans += len(nc.Pods)
	}
	c.reserved.add(reserves, names, podKeys(pods), orphans, s.Now)
	return errors.Join(err, errReserve)
}

// podsByKey indexes pods by "namespace/name", the key plans name them by.
func podsByKey(pods []*corev1.Pod) map[string]*corev1.Pod {
	out := make(map[string]*corev1.Pod, len(pods))
	for _, pod := range pods {
		out[pod.Namespace+"/"+pod.Name] = pod
	}
	return out
}

func podKeys(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, pod := range pods {
		out[i] = pod.Namespace + "/" + pod.Name
	}
	return out
}

// debugPlacements logs, at debug level, which pods the plan put on existing nodes and claims in
// flight, so a pod's wait can be traced to the targets it was planned on.
func (c *Controller) debugPlacements(ctx context.Context, plan *provisioner.Plan) {
	if !c.log.Enabled(ctx, slog.LevelDebug) {
		return
	}
	placed := map[string][]string{}
	for _, placements := range [][]provisioner.NodePlacement{plan.ExistingNodes, plan.InFlightClaims} {
		for _, p := range placements {
			placed[p.Name] = append(placed[p.Name], p.Pods...)
		}
	}
	if len(placed) > 0 {
		c.log.Debug("planned onto existing nodes and claims in flight", "pods", placed)
	}
}

// nominationWindow is how long a plan's nodes and claims stay nominated: twice the batch window,
// at least 10 s (Karpenter's).
func (c *Controller) nominationWindow() time.Duration { return max(2*c.cfg.BatchMax, 10*time.Second) }

// nominate remembers which nodes and in-flight claims the plan counts on, for twice the batch
// window (Karpenter's nomination window), so consolidation does not take them away meanwhile.
func (c *Controller) nominate(plan *provisioner.Plan, now time.Time) {
	for _, placements := range [][]provisioner.NodePlacement{plan.ExistingNodes, plan.InFlightClaims} {
		for _, p := range placements {
			c.state.nominate(p.Name, now.Add(c.nominationWindow()), now)
		}
	}
}

// nominateNames nominates the named nodes or claims, as nominate does a plan's.
func (c *Controller) nominateNames(names []string, now time.Time) {
	for _, name := range names {
		c.state.nominate(name, now.Add(c.nominationWindow()), now)
	}
}

// reportUnschedulable tells each pod the plan could not place why, once per distinct reason.
func (c *Controller) reportUnschedulable(ctx context.Context, plan *provisioner.Plan, pods []*corev1.Pod) {
	byKey := podsByKey(pods)
	for _, u := range plan.Unschedulable {
		pod := byKey[u.Pod]
		if pod == nil {
			continue
		}
		msg := fmt.Sprintf("napkit cannot provision a node for this pod: %s: %s", u.Code, u.Reason)
		if c.state.newPodMessage(pod.UID, msg) {
			c.podEvent(ctx, pod, corev1.EventTypeWarning, "FailedScheduling", msg)
		}
	}
}

// claimCreateWorkers bounds the NodeClaim creates in flight. Karpenter creates a batch's claims in
// parallel; one at a time, a 10,000-pod batch of about 300 claims (each listing up to 600
// instance types) took over a minute on a loaded API server. A create then takes about a second
// of the API server's latency, not its CPU: 16 at a time made 339 claims in 21.3 s, 64 made 326
// in 5.2 s (docs/benchmarks.md, eleventh session); the client's QPS still bounds the rate.
const claimCreateWorkers = 64

// createClaims writes one NodeClaim per planned claim, claimCreateWorkers at a time, and returns
// the names written, in plan order. A failure does not stop the other creates; the pods of a claim
// not written are planned again by the next batch.
func (c *Controller) createClaims(ctx context.Context, s *clusterSnapshot, planned []provisioner.NodeClaim, reason string) ([]string, error) {
	claims, errPool := c.nameClaims(s, planned)
	// Each create's error is kept apart (a failure does not cancel the others), so the group's own
	// error is unused.
	errs := make([]error, len(claims))
	var g errgroup.Group
	g.SetLimit(claimCreateWorkers)
	for i, nc := range claims {
		g.Go(func() error {
			errs[i] = c.createClaim(ctx, nc)
			return nil
		})
	}
	_ = g.Wait()
	var names []string
	for i, nc := range claims {
		if errs[i] != nil {
			continue
		}
		p := planned[i]
		c.metrics.claimsCreated.WithLabelValues(reason, p.NodePool).Inc()
		c.state.nominate(nc.Name, s.Now.Add(c.nominationWindow()), s.Now)
		c.planned.recordCreated(nc.Name, p.Pods, s.Now)
		c.log.Info("created NodeClaim", "nodeClaim", nc.Name, "reason", reason, "instanceType", p.InstanceType,
			"zone", p.Zone, "capacityType", p.CapacityType, "options", len(p.InstanceTypeOptions), "pods", len(p.Pods))
		if c.log.Enabled(ctx, slog.LevelDebug) {
			c.log.Debug("NodeClaim pods", "nodeClaim", nc.Name, "pods", p.Pods) // which pod waits on which claim
		}
		names = append(names, nc.Name)
	}
	return names, errors.Join(append(errs, errPool)...)
}

// nameClaims turns the planned claims into NodeClaims with fresh names, in plan order, up to the
// first whose NodePool is gone (that one is the error).
func (c *Controller) nameClaims(s *clusterSnapshot, planned []provisioner.NodeClaim) ([]*api.NodeClaim, error) {
	existing := make([]string, 0, len(s.claims))
	for _, nc := range s.claims {
		existing = append(existing, nc.Name)
	}
	inUse := highestClaimNumbers(existing)
	claims := make([]*api.NodeClaim, 0, len(planned))
	for _, p := range planned {
		pool, ok := s.Pool(p.NodePool)
		if !ok {
			return claims, fmt.Errorf("planned NodeClaim %s: NodePool %q is gone", p.Name, p.NodePool)
		}
		nc := newClaim(c.state.claimName(p.NodePool, inUse[p.NodePool]), pool.NodePool, p)
		c.stampDriftAnnotations(nc)
		claims = append(claims, nc)
	}
	return claims, nil
}

// catalogueFor returns the catalogue of the pool's node class.
func (c *Controller) catalogueFor(pool *api.NodePool) (*instancetype.Catalogue, error) {
	ref := pool.Spec.Template.Spec.NodeClassRef
	if ref == nil {
		return nil, fmt.Errorf("NodePool %s has no nodeClassRef", pool.Name)
	}
	class := c.nodeClass(ref.Name)
	if class == nil {
		return nil, fmt.Errorf("NodePool %s: AKSNodeClass %q not found", pool.Name, ref.Name)
	}
	return c.catalogues.get(class)
}
