//go:build e2e && scale

package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/examples/controller/internal/simnodes"
)

// The scale suite's controller timing: Karpenter's batch windows (1 s idle, 10 s max); by default
// a 5 s disruption interval and validation delay, half of Karpenter's (10 s, 15 s: the binary's
// defaults), so that a scale-down settles in minutes (NAPKIT_SCALE_DISRUPTION_INTERVAL and
// NAPKIT_SCALE_VALIDATION_DELAY set them); everything else at the binary's defaults (budgets:
// 10 % of the nodes; a replace saves at least controller.DefaultMinReplaceSavings).
const (
	scaleDisruptionInterval = 5 * time.Second
	scaleSampleEvery        = 100 * time.Millisecond
	// scaleConsolidateAfter is the suite NodePool's consolidateAfter.
	scaleConsolidateAfter = 10 * time.Second
	// scaleBatchMax is the controller's longest batch in the suite (Karpenter's default).
	scaleBatchMax = 10 * time.Second
)

// TestScale runs the suite's four phases on one control plane: scale-up of pending pods from 50
// Deployments, the idle steady state, a scale-down of 80 % of the pods, and churn. It reports its
// figures (t.Log, and NAPKIT_SCALE_REPORT as JSON) and fails on a lost pod, a leaked VM, a stuck
// NodeClaim, or a phase that does not finish within its timeout. scripts/scale.sh runs it.
func TestScale(t *testing.T) {
	p := readScaleParams(t)
	s := startStack(t, stackOptions{
		tune: func(cfg *controller.Config) {
			cfg.BatchIdle, cfg.BatchMax = time.Second, scaleBatchMax
			cfg.DisruptionInterval, cfg.ValidationDelay = p.disruptionInterval, p.validationDelay
			cfg.Consolidation.MinReplaceSavings = controller.DefaultMinReplaceSavings // the binary's default
			if p.planForScheduler != nil {
				cfg.PlanForScheduler = *p.planForScheduler
			}
			if p.nominateMaxUnbound != 0 {
				cfg.NominateMaxUnbound = p.nominateMaxUnbound
			}
			if p.nominateMaxPending != 0 {
				cfg.NominateMaxPending = p.nominateMaxPending
			}
			if p.nominatePods != "" {
				cfg.NominatePods = p.nominatePods
			}
			if p.chainSteps != 0 {
				cfg.DisruptionChainSteps = p.chainSteps
			}
			cfg.MarkUnneeded = p.markUnneeded
			cfg.Consolidation.AllowManyToMany = p.manyToMany
		},
		kubelet:       func(o *simnodes.Options) { o.BootDelay, o.Poll, o.Workers = p.bootDelay, 250*time.Millisecond, 32 },
		process:       p.process,
		vmCreateTime:  p.vmCreate,
		armLimits:     p.armLimits,
		provisionMode: p.provisionMode,
	})
	keepControllerLog(t, s, p.controllerLog)
	ctx := t.Context()
	require.NoError(t, s.c.create(ctx, seedNodeClass(t), scalePool()))
	ns := s.c.newNamespace(t, "scale")
	if !p.noSystemNode {
		registerSystemNode(t, s.c)
	}
	w := startWatcher(t, s.c)
	r := &scaleReport{Pods: p.pods, Deployments: deploymentsPerRun, BootDelaySeconds: p.bootDelay.Seconds(),
		VMCreateSeconds: p.vmCreate.Seconds(), ARMLimits: p.armLimits, ProvisionMode: string(p.provisionMode),
		SystemNode: !p.noSystemNode, DisruptionIntervalSeconds: p.disruptionInterval.Seconds(),
		ValidationDelaySeconds: p.validationDelay.Seconds(), ManyToMany: p.manyToMany}
	defer r.log(t) // the figures so far, also when a phase fails

	shapes := scaleShapes()
	perDeployment := int32(p.pods / deploymentsPerRun)
	scaleUp(t, s, w, ns, shapes, perDeployment, p, r)
	r.PriceLower, r.PricePlan = lowerBound(t, w, ns)
	if p.phases["steady"] {
		steadyState(t, s, w, p, r)
		if p.compareBinary != "" {
			compareRestarts(t, s, p, r)
		}
	}
	if p.phases["down"] {
		scaleDown(t, s, w, ns, shapes, perDeployment, p, r)
	}
	if p.phases["churn"] {
		churn(t, s, w, ns, shapes, perDeployment, p, r)
	}
	r.append(t, p.reportPath)
}

// scaleUp creates the Deployments and waits for every pod to run, sampling the caches to find
// when the last NodeClaim was created, the last node initialized and the last pod started.
// disruptionDecisions counts the disruption commands the controller executed.
const disruptionDecisions = "karpenter_voluntary_disruption_decisions_total"

// plannedReleasedTotal counts the pods the controller's hold let go from their planned target.
const plannedReleasedTotal = "napkit_planned_pods_released_total"

func scaleUp(t *testing.T, s *stack, w *watcher, ns string, shapes []scaleShape, replicas int32, p scaleParams, r *scaleReport) {
	t.Helper()
	before, schedBefore := requestsByMethod(t, s.metrics), readScheduler(t, s.c)
	commandsBefore := counterTotal(t, s.metrics, disruptionDecisions)
	releasedBefore := counterByLabel(t, s.metrics, plannedReleasedTotal, "reason")
	began := time.Now()
	for _, shape := range shapes {
		_, err := s.c.kube.AppsV1().Deployments(ns).Create(t.Context(), shape.deployment(ns, replicas), metav1.CreateOptions{})
		require.NoError(t, err)
	}
	// kube-scheduler binds about 30 pods/s on the 2-core machine (docs/benchmarks.md), fewer as the
	// nodes grow: 20,000 pods need over 11 minutes of binding alone, so 60 ms a pod.
	timeout := 5*time.Minute + time.Duration(p.pods)*60*time.Millisecond + p.bootDelay
	var samples []sample
	err := sampleUntil(t.Context(), w, timeout, func(c counts) bool {
		samples = append(samples, sample{at: time.Now(), c: c})
		return c.running == p.pods && c.pending == 0
	})
	require.NoError(t, err, "scale-up: %d pods not all Running; last %+v", p.pods, lastCounts(samples))
	final := samples[len(samples)-1].c
	first := func(ok func(counts) bool) float64 {
		for _, smp := range samples {
			if ok(smp.c) {
				return smp.at.Sub(began).Seconds()
			}
		}
		return -1
	}
	r.PodsCreatedSeconds = first(func(c counts) bool { return c.pods == p.pods })
	r.ClaimsSeconds = first(func(c counts) bool { return c.claims == final.claims })
	// The target reads "1,000 pods pending -> all NodeClaims": from the last pod's creation.
	r.ClaimsAfterLastPodSeconds = r.ClaimsSeconds - r.PodsCreatedSeconds
	r.FirstClaimSeconds = first(func(c counts) bool { return c.claims > 0 })
	// ClaimsSeconds is when the count first reached its final value, which a consolidation during
	// the scale-up (a claim gone) can make early; LastClaimSeconds is the last creation seen.
	r.LastClaimSeconds = w.lastClaimSeen().Sub(began).Seconds()
	last, median, longest := w.verdicts(began)
	r.VerdictLastSeconds, r.VerdictMedianSeconds, r.VerdictMaxSeconds = last.Seconds(), median.Seconds(), longest.Seconds()
	// A node that registered in the last samples (a late NodeClaim for a pod kube-scheduler placed
	// elsewhere) may not be initialized yet: the time is when the initialized count reached its final
	// value, not -1.
	r.NodesReadySeconds = first(func(c counts) bool { return c.initialized >= final.initialized })
	r.RunningSeconds = first(func(c counts) bool { return c.running == p.pods })
	r.Nodes, r.Claims = final.nodes, final.claims
	r.BindMean, r.BindPeak = w.bindingRate(began)
	r.MaxPendingSeconds = w.takePendingFor().Seconds()
	after := requestsByMethod(t, s.metrics)
	r.ScaleUpCommands = int(counterTotal(t, s.metrics, disruptionDecisions) - commandsBefore)
	r.ScaleUpReleased = plannedReleased(t, s.metrics, releasedBefore)
	r.ARM = s.sim.RateLimited()
	r.ControllerWrites, r.ControllerReads = writesAndReads(before, after)
	r.PodNominations = int(after["PATCH"] - before["PATCH"])
	if final.claims > 0 {
		r.WritesPerNode = float64(r.ControllerWrites) / float64(final.claims)
		r.WritesPerNodeBesidesNominations = float64(r.ControllerWrites-r.PodNominations) / float64(final.claims)
		r.ReadsPerNode = float64(r.ControllerReads) / float64(final.claims)
	}
	r.PricePerHour = clusterPrice(t, w)
	r.schedulerFigures = readScheduler(t, s.c).since(schedBefore, p.pods, time.Since(began))
	r.SchedulerQPS, r.SchedulerBurst = schedulerClientLimit(t, s.c)
}

// keepControllerLog copies the controller's log to path when the test ends (nothing when path is
// empty), for tracing a run's batches afterwards.
func keepControllerLog(t *testing.T, s *stack, path string) {
	if path == "" {
		return
	}
	t.Cleanup(func() {
		data, err := os.ReadFile(s.logPath)
		if err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
		if err != nil {
			t.Logf("NAPKIT_SCALE_CONTROLLER_LOG=%s: %v", path, err)
		}
	})
}

// sample is one reading of the caches and when it was taken.
type sample struct {
	at time.Time
	c  counts
}

func lastCounts(samples []sample) counts {
	if len(samples) == 0 {
		return counts{}
	}
	return samples[len(samples)-1].c
}

// sampleUntil reads the caches every scaleSampleEvery until done says so or timeout passes.
func sampleUntil(ctx context.Context, w *watcher, timeout time.Duration, done func(counts) bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(scaleSampleEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("after %s: %w", timeout, ctx.Err())
		case <-tick.C:
			if done(w.count()) {
				return nil
			}
		}
	}
}

// steadyState samples the idle cluster: process memory and CPU (the controller's own in process
// mode), the controller's API requests per second, and its reconcile latency.
func steadyState(t *testing.T, s *stack, w *watcher, p scaleParams, r *scaleReport) {
	t.Helper()
	f := measureSteady(t, s, p.steady, p.heapProfile)
	r.SteadyRequestsPerSecond, r.SteadyCPUCores = f.RequestsPerSecond, f.CPUCores
	r.RSSMiB, r.HWMMiB, r.HeapMiB = f.RSSMiB, f.HWMMiB, f.HeapMiB
	r.ReconcileMeanMillis, r.ReconcileCount = f.ReconcileMeanMillis, f.ReconcileCount
	r.ControllerProcess = s.proc != nil
	r.SteadyNodes, r.SteadyPods = w.count().nodes, w.count().running
}

// steadyFigures are one idle window's figures of the running controller.
type steadyFigures struct {
	// Binary names the controller of a restart (compareRestarts); empty for the steady state.
	Binary                      string `json:",omitempty"`
	RequestsPerSecond, CPUCores float64
	RSSMiB, HWMMiB, HeapMiB     float64
	ReconcileMeanMillis         float64
	ReconcileCount              uint64
}

// measureSteady samples the controller for window; in process mode it also writes its heap
// profile to profile (when not empty).
func measureSteady(t *testing.T, s *stack, window time.Duration, profile string) steadyFigures {
	t.Helper()
	before, cpuBefore := requestsByMethod(t, s.metrics), processCPU(t, s.pid())
	reconcileBefore := reconcileTimes(t, s.metrics)
	began := time.Now()
	select {
	case <-t.Context().Done():
		t.Fatal(t.Context().Err())
	case <-time.After(window):
	}
	elapsed := time.Since(began).Seconds()
	var f steadyFigures
	writes, reads := writesAndReads(before, requestsByMethod(t, s.metrics))
	f.RequestsPerSecond = float64(writes+reads) / elapsed
	f.CPUCores = (processCPU(t, s.pid()) - cpuBefore) / elapsed
	f.RSSMiB, f.HWMMiB = processMemory(t, s.pid())
	f.HeapMiB = s.heapMiB(t)
	f.ReconcileMeanMillis, f.ReconcileCount = reconcileTimes(t, s.metrics).since(reconcileBefore)
	if s.proc != nil && profile != "" {
		s.proc.saveHeapProfile(t, profile)
	}
	return f
}

// scaleDown deletes 80 % of the pods (every Deployment to a fifth) and waits for consolidation
// to settle: no NodeClaim created or deleted for three disruption intervals past the validation
// delay, every remaining pod Running. A pod evicted is replaced by its ReplicaSet, so the pods
// created after the scale-down are the evictions.
func scaleDown(t *testing.T, s *stack, w *watcher, ns string, shapes []scaleShape, replicas int32, p scaleParams, r *scaleReport) {
	t.Helper()
	keep := max(replicas/5, 1)
	want := int(keep) * len(shapes)
	createdBefore := w.podsCreated()
	commandsBefore := counterTotal(t, s.metrics, disruptionDecisions)
	began := time.Now()
	for _, shape := range shapes {
		require.NoError(t, scaleDeployment(t, s, ns, shape.name, keep))
	}
	settled, removed := waitSettled(t, w, want, p.quiet(), 15*time.Minute)
	r.ScaleDownSettleSeconds = settled.Sub(began).Seconds()
	r.ScaleDownNodesRemoved = removed
	r.ScaleDownEvictions = w.podsCreated() - createdBefore
	r.ScaleDownCommands = int(counterTotal(t, s.metrics, disruptionDecisions) - commandsBefore)
	r.ScaleDownWithinIntervals = r.ScaleDownSettleSeconds <= 10*p.disruptionInterval.Seconds()
	r.ScaleDownPricePerHour = clusterPrice(t, w)
	_, r.ScaleDownPlanPerHour = lowerBound(t, w, ns)
	requireNoLeaks(t, s, w, want, r)
}

// churn scales random Deployments up and down for the churn duration, then returns them to a
// fifth and checks that everything settles: no leaked VM, no stuck NodeClaim, no lost pod.
func churn(t *testing.T, s *stack, w *watcher, ns string, shapes []scaleShape, replicas int32, p scaleParams, r *scaleReport) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	_ = w.takePendingFor()
	from := time.Now()
	patches := requestsByMethod(t, s.metrics)["PATCH"]
	released := counterByLabel(t, s.metrics, plannedReleasedTotal, "reason")
	defer func() {
		r.ChurnNominations = int(requestsByMethod(t, s.metrics)["PATCH"] - patches)
		r.ChurnReleased = plannedReleased(t, s.metrics, released)
	}()
	end := from.Add(p.churn)
	for time.Now().Before(end) {
		for range 5 {
			shape := shapes[rng.IntN(len(shapes))]
			require.NoError(t, scaleDeployment(t, s, ns, shape.name, int32(rng.IntN(int(2*replicas)+1))))
			r.ChurnScales++
		}
		time.Sleep(3 * time.Second)
	}
	keep := max(replicas/5, 1)
	for _, shape := range shapes {
		require.NoError(t, scaleDeployment(t, s, ns, shape.name, keep))
	}
	began := time.Now()
	settled, _ := waitSettled(t, w, int(keep)*len(shapes), p.quiet(), 15*time.Minute)
	r.ChurnSettleSeconds = settled.Sub(began).Seconds()
	r.ChurnMaxPendingSeconds = w.takePendingFor().Seconds()
	reportPending(t, w, from, scaleBatchMax+p.vmCreate+p.bootDelay, r)
	requireNoLeaks(t, s, w, int(keep)*len(shapes), r)
}

// scaleDeployment sets the replicas, retrying when the Deployment controller's own status writes
// make the read version stale.
func scaleDeployment(t *testing.T, s *stack, ns, name string, replicas int32) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { return s.c.scale(t.Context(), ns, name, replicas) })
}

// waitSettled waits until want pods run, none is pending or terminating, and the set of
// NodeClaims and the node count have not changed for the quiet period (scaleParams.quiet); it
// returns the time of the last change and how many nodes went since the call.
func waitSettled(t *testing.T, w *watcher, want int, quiet, timeout time.Duration) (time.Time, int) {
	t.Helper()
	start := w.count()
	last, lastChange := start, time.Now()
	err := sampleUntil(t.Context(), w, timeout, func(c counts) bool {
		if c.claimSet != last.claimSet || c.nodes != last.nodes {
			lastChange = time.Now()
		}
		last = c
		return c.running == want && c.pending == 0 && c.terminating == 0 && time.Since(lastChange) >= quiet
	})
	require.NoError(t, err, "settling to %d Running pods; last %+v", want, last)
	return lastChange, max(start.nodes-last.nodes, 0)
}
