//go:build e2e && scale

package e2e

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azuresim"
	"github.com/napkit/napkit/provisioner"
)

// scaleReport is one run's figures; docs/benchmarks.md explains each.
type scaleReport struct {
	Pods, Deployments int
	BootDelaySeconds  float64
	VMCreateSeconds   float64 // the simulated Azure's VM create (NAPKIT_SCALE_VM_CREATE)
	// DisruptionIntervalSeconds and ValidationDelaySeconds are the controller's disruption timing
	// (NAPKIT_SCALE_DISRUPTION_INTERVAL, NAPKIT_SCALE_VALIDATION_DELAY; 5 s each by default).
	DisruptionIntervalSeconds, ValidationDelaySeconds float64
	// ARMLimits is NAPKIT_SCALE_ARM_LIMITS: the simulated Azure throttled calls with ARM's
	// subscription buckets. ARM counts, per operation type, the calls it served and refused (429)
	// by the end of the scale-up (zero without the limits).
	ARMLimits bool
	ARM       azuresim.RateCounts
	// ProvisionMode is NAPKIT_SCALE_PROVISION_MODE ("": aksscriptless).
	ProvisionMode string
	// SystemNode is whether the cluster had its system node (scale_system_test.go; false only
	// with NAPKIT_SCALE_SYSTEM_NODE=false, and in reports from before it existed).
	SystemNode bool
	// ManyToMany is NAPKIT_SCALE_ALLOW_MANY_TO_MANY: consolidation commands could replace M
	// nodes by N > 1 (false in reports from before it existed).
	ManyToMany                               bool
	PodsCreatedSeconds, ClaimsSeconds        float64
	FirstClaimSeconds, LastClaimSeconds      float64
	ClaimsAfterLastPodSeconds                float64
	VerdictLastSeconds, VerdictMedianSeconds float64
	VerdictMaxSeconds                        float64
	NodesReadySeconds, RunningSeconds        float64
	Nodes, Claims                            int
	BindMean, BindPeak                       float64
	MaxPendingSeconds                        float64
	ControllerWrites, ControllerReads        int
	WritesPerNode, ReadsPerNode              float64
	// PodNominations are the controller's PATCH requests during the scale-up: its only PATCH is a
	// pod's status.nominatedNodeName (Config.NominatePods). WritesPerNodeBesidesNominations
	// leaves them out of WritesPerNode.
	PodNominations                             int
	WritesPerNodeBesidesNominations            float64
	ChurnNominations                           int // PATCH requests during the churn and its settling
	PricePerHour, PricePlan, PriceLower        float64
	SteadyNodes, SteadyPods                    int
	SteadyRequestsPerSecond, SteadyCPUCores    float64
	RSSMiB, HeapMiB                            float64
	HWMMiB                                     float64         // peak RSS (VmHWM)
	ControllerProcess                          bool            // RSS, CPU and heap are the controller process's alone
	Restarts                                   []steadyFigures // compareRestarts: the compared binary's, then the suite's
	ReconcileMeanMillis                        float64
	ReconcileCount                             uint64
	ScaleDownSettleSeconds                     float64
	ScaleDownNodesRemoved, ScaleDownEvictions  int
	ScaleDownWithinIntervals                   bool
	ChurnScales                                int
	ChurnSettleSeconds, ChurnMaxPendingSeconds float64
	// ChurnBound pods were created during the churn and bound; ChurnUnbound were deleted or still
	// pending at its end. The quantiles are of their creation-to-binding waits.
	ChurnBound, ChurnUnbound         int
	ChurnPendingP50, ChurnPendingP90 float64
	ChurnPendingP99, ChurnPendingMax float64
	// ChurnOverBound of the bound pods waited longer than ChurnPendingBoundSeconds, the issue's
	// "one batch plus the boot": the batch's longest (10 s), the VM create and the boot delay.
	ChurnOverBound           int
	ChurnPendingBoundSeconds float64
	// ScaleDownCommands is how many disruption commands the controller executed during the
	// scale-down (karpenter_voluntary_disruption_decisions_total).
	ScaleDownCommands int
	// ScaleDownPricePerHour is what the cluster costs once the scale-down settled, and
	// ScaleDownPlanPerHour what an offline plan of the pods left costs on an empty cluster (the
	// same yardstick as PricePlan): how good a state consolidation settled in, not only how fast.
	ScaleDownPricePerHour, ScaleDownPlanPerHour float64
	// ScaleUpCommands is how many the controller executed during the scale-up: consolidation
	// acting on nodes whose pods kube-scheduler has not bound yet, which evicts pods and adds
	// writes and NodeClaims to the scale-up's figures.
	ScaleUpCommands int
	// ScaleUpReleased and ChurnReleased count, by reason (targetGone, graceOver, antiAffinity,
	// spread, noRoom), the pending pods the controller's hold let go from the NodeClaim or node a
	// plan had put them on, during the scale-up and during the churn and its settling
	// (napkit_planned_pods_released_total): kube-scheduler placing pods other than the plan.
	ScaleUpReleased, ChurnReleased   map[string]int
	LeakedVMs, StuckClaims, LostPods int
	schedulerFigures
}

func (r *scaleReport) log(t *testing.T) {
	t.Helper()
	t.Logf("scale-up of %d pods from %d Deployments (boot delay %.0f s): pods created %.1f s, all NodeClaims %.1f s "+
		"(%.1f s after the last pod), all nodes initialized %.1f s, all pods Running %.1f s (%.1f s past the boot delay)",
		r.Pods, r.Deployments, r.BootDelaySeconds, r.PodsCreatedSeconds, r.ClaimsSeconds, r.ClaimsAfterLastPodSeconds,
		r.NodesReadySeconds, r.RunningSeconds, r.RunningSeconds-r.BootDelaySeconds)
	t.Logf("kube-scheduler's first verdict (Unschedulable or bound): last pod at %.1f s; creation to verdict median %.1f s, "+
		"longest %.1f s; first NodeClaim at %.1f s, last NodeClaim created at %.1f s (%.1f s after the last pod)", r.VerdictLastSeconds,
		r.VerdictMedianSeconds, r.VerdictMaxSeconds, r.FirstClaimSeconds, r.LastClaimSeconds, r.LastClaimSeconds-r.PodsCreatedSeconds)
	t.Logf("nodes %d, NodeClaims %d; kube-scheduler bound %.1f pods/s on average, %.0f in the busiest second",
		r.Nodes, r.Claims, r.BindMean, r.BindPeak)
	t.Logf("kube-scheduler (client qps %.0f, burst %d) during scale-up: %.1f s waiting on its client rate limit, %.1f CPU-s "+
		"(%.2f cores), attempts %v (%.2f per pod), requests %v", r.SchedulerQPS, r.SchedulerBurst, r.SchedulerLimiterWaitSeconds,
		r.SchedulerCPUSeconds, r.SchedulerCores, r.SchedulerAttempts, r.SchedulerAttemptsPerPod, r.SchedulerRequests)
	t.Logf("kube-scheduler's queue entries by event during scale-up: %v", r.SchedulerQueueIncoming)
	t.Logf("controller requests during scale-up: %d writes (%.1f per node; %d pod nominations, %.1f per node besides them), "+
		"%d reads (%.1f per node); %d disruption commands executed; held pods released %v", r.ControllerWrites, r.WritesPerNode,
		r.PodNominations, r.WritesPerNodeBesidesNominations, r.ControllerReads, r.ReadsPerNode, r.ScaleUpCommands, r.ScaleUpReleased)
	if r.ARMLimits {
		t.Logf("ARM calls under the subscription buckets (served/throttled): reads %d/%d, writes %d/%d, deletes %d/%d",
			r.ARM.Reads.Served, r.ARM.Reads.Throttled, r.ARM.Writes.Served, r.ARM.Writes.Throttled,
			r.ARM.Deletes.Served, r.ARM.Deletes.Throttled)
	}
	t.Logf("price $%.2f/h; an offline plan of the same pods $%.2f/h; its lower bound $%.2f/h", r.PricePerHour, r.PricePlan, r.PriceLower)
	whose := "test process (controller, simulated Azure and kubelets, the suite's informers)"
	if r.ControllerProcess {
		whose = "controller process"
	}
	t.Logf("steady state at %d nodes / %d pods: %.2f controller requests/s; %s %.3f cores, RSS %.0f MiB (peak %.0f MiB, heap %.0f MiB); "+
		"reconcile mean %.2f ms over %d", r.SteadyNodes, r.SteadyPods, r.SteadyRequestsPerSecond, whose, r.SteadyCPUCores, r.RSSMiB,
		r.HWMMiB, r.HeapMiB, r.ReconcileMeanMillis, r.ReconcileCount)
	t.Logf("scale-down: settled in %.1f s (within 10 disruption intervals: %v), %d nodes removed, %d evictions, %d commands executed; "+
		"then $%.2f/h, an offline plan of the pods left $%.2f/h", r.ScaleDownSettleSeconds, r.ScaleDownWithinIntervals,
		r.ScaleDownNodesRemoved, r.ScaleDownEvictions, r.ScaleDownCommands, r.ScaleDownPricePerHour, r.ScaleDownPlanPerHour)
	t.Logf("churn: %d scalings, settled %.1f s after, longest pending %.1f s, %d pod nominations, held pods released %v; "+
		"leaked VMs %d, stuck NodeClaims %d, lost pods %d", r.ChurnScales, r.ChurnSettleSeconds, r.ChurnMaxPendingSeconds,
		r.ChurnNominations, r.ChurnReleased, r.LeakedVMs, r.StuckClaims, r.LostPods)
}

// append adds the report as one JSON line to path (nothing when path is empty).
func (r *scaleReport) append(t *testing.T, path string) {
	t.Helper()
	if path == "" {
		return
	}
	line, err := json.Marshal(r)
	require.NoError(t, err)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(t, err, "NAPKIT_SCALE_REPORT=%s", path)
	defer f.Close()
	_, err = f.Write(append(line, '\n'))
	require.NoError(t, err)
}

// requestsByMethod reads rest_client_requests_total of the controller's clients by HTTP method.
func requestsByMethod(t *testing.T, reg prometheus.Gatherer) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for method, n := range counterByLabel(t, reg, "rest_client_requests_total", "method") {
		out[strings.ToUpper(method)] += n
	}
	return out
}

// counterByLabel sums a counter family's series by one label's value.
func counterByLabel(t *testing.T, reg prometheus.Gatherer, name, label string) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label {
					out[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}

// plannedReleased counts the controller's held pods released since before (a reading of
// plannedReleasedTotal by reason), by reason.
func plannedReleased(t *testing.T, reg prometheus.Gatherer, before map[string]float64) map[string]int {
	t.Helper()
	out := map[string]int{}
	for why, n := range counterByLabel(t, reg, plannedReleasedTotal, "reason") {
		if d := int(n - before[why]); d > 0 {
			out[why] = d
		}
	}
	return out
}

// counterTotal sums a counter family's series (0 when the family is absent).
func counterTotal(t *testing.T, reg prometheus.Gatherer, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	total := 0.0
	for _, f := range families {
		if f.GetName() == name {
			for _, m := range f.GetMetric() {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

// writesAndReads splits the requests between two readings into writes and reads (GET, LIST and
// the WATCH requests that start watches).
func writesAndReads(before, after map[string]float64) (writes, reads int) {
	for method, n := range after {
		d := int(n - before[method])
		if method == "GET" {
			reads += d
		} else {
			writes += d
		}
	}
	return writes, reads
}

// reconcileSums are controller_runtime_reconcile_time_seconds' sum and count over all reconcilers.
type reconcileSums struct {
	sum   float64
	count uint64
}

func reconcileTimes(t *testing.T, reg prometheus.Gatherer) reconcileSums {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	var out reconcileSums
	for _, f := range families {
		if f.GetName() == "controller_runtime_reconcile_time_seconds" {
			for _, m := range f.GetMetric() {
				out.sum += m.GetHistogram().GetSampleSum()
				out.count += m.GetHistogram().GetSampleCount()
			}
		}
	}
	return out
}

// since is the mean reconcile time in milliseconds and the number of reconciles since before.
func (r reconcileSums) since(before reconcileSums) (float64, uint64) {
	n := r.count - before.count
	if n == 0 {
		return 0, 0
	}
	return (r.sum - before.sum) / float64(n) * 1000, n
}

// processCPU is a process's user+system CPU time in seconds (/proc/PID/stat; pid "self" is the
// test process, which also runs the simulated Azure and kubelets and the suite's informers, and
// the controller unless it runs in its own process).
func processCPU(t *testing.T, pid string) float64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	require.NoError(t, err)
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, err1 := strconv.ParseFloat(fields[11], 64)
	stime, err2 := strconv.ParseFloat(fields[12], 64)
	require.NoError(t, err1)
	require.NoError(t, err2)
	const clockTicks = 100 // USER_HZ on Linux
	return (utime + stime) / clockTicks
}

// processMemory is a process's resident set (VmRSS) and its peak (VmHWM), in MiB.
func processMemory(t *testing.T, pid string) (rss, hwm float64) {
	t.Helper()
	b, err := os.ReadFile("/proc/" + pid + "/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		for prefix, to := range map[string]*float64{"VmRSS:": &rss, "VmHWM:": &hwm} {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
				require.NoError(t, err)
				*to = kb / 1024
			}
		}
	}
	return rss, hwm
}

// clusterPrice sums the on-demand price of every node's instance type in its zone.
func clusterPrice(t *testing.T, w *watcher) float64 {
	t.Helper()
	cat, err := baseCatalogue()
	require.NoError(t, err)
	total := 0.0
	for _, obj := range w.nodes.GetStore().List() {
		node := obj.(*corev1.Node)
		it, ok := cat.Find(node.Labels[api.LabelInstanceType])
		require.True(t, ok, "node %s: instance type %q not in the catalogue", node.Name, node.Labels[api.LabelInstanceType])
		for _, o := range it.Offerings {
			if o.Zone == node.Labels[api.LabelZone] && o.CapacityType == node.Labels[api.LabelCapacityType] {
				total += o.Price
				break
			}
		}
	}
	return total
}

// lowerBound plans the scale-up's pods offline, all pending on an empty cluster, with the same
// NodePool and catalogue, and returns the plan's lower bound and price: what the controller's
// cluster costs is judged against them.
func lowerBound(t *testing.T, w *watcher, ns string) (lower, plan float64) {
	t.Helper()
	pool, err := controller.FromUnstructured[api.NodePool](scalePool())
	require.NoError(t, err)
	pool.Default()
	class, err := controller.FromUnstructured[api.AKSNodeClass](seedNodeClass(t))
	require.NoError(t, err)
	class.Default()
	build, err := controller.NewCatalogue(region, api.DefaultClusterNetwork(), launch.NewUnavailableOfferings(time.Now))
	require.NoError(t, err)
	cat, err := build(class)
	require.NoError(t, err)
	var pods []*corev1.Pod
	for _, obj := range w.pods.GetStore().List() {
		pod := obj.(*corev1.Pod).DeepCopy()
		if pod.DeletionTimestamp != nil {
			continue
		}
		pod.Spec.NodeName, pod.Status = "", corev1.PodStatus{}
		pods = append(pods, pod)
	}
	out, err := provisioner.Solve(provisioner.Input{Pods: pods,
		NodePools:  []provisioner.NodePoolInput{{NodePool: pool, InstanceTypes: cat.InstanceTypes}},
		Namespaces: []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: ns}}}})
	require.NoError(t, err)
	return out.Cost.LowerBoundPerHour, out.Cost.PricePerHour
}

// requireNoLeaks checks the settled cluster: every VM has a NodeClaim, every NodeClaim is
// initialized and has a VM, and want pods run.
func requireNoLeaks(t *testing.T, s *stack, w *watcher, want int, r *scaleReport) {
	t.Helper()
	insts, err := s.launcher.List(t.Context())
	require.NoError(t, err)
	claims := map[string]*api.NodeClaim{}
	for _, obj := range w.claims.GetStore().List() {
		nc, err := controller.FromUnstructured[api.NodeClaim](obj)
		require.NoError(t, err)
		claims[nc.Status.ProviderID] = nc
	}
	vms := map[string]bool{}
	var leaked, stuck []string
	for _, inst := range insts {
		vms[inst.ProviderID] = true
		if claims[inst.ProviderID] == nil {
			leaked = append(leaked, inst.Name)
		}
	}
	for id, nc := range claims {
		if !vms[id] || !conditionTrue(nc, api.ConditionInitialized) {
			stuck = append(stuck, nc.Name)
		}
	}
	c := w.count()
	r.LeakedVMs, r.StuckClaims, r.LostPods = max(r.LeakedVMs, len(leaked)), max(r.StuckClaims, len(stuck)), max(r.LostPods, want-c.running)
	require.Empty(t, leaked, "VMs without a NodeClaim")
	require.Empty(t, stuck, "NodeClaims without a VM or not initialized")
	require.Equal(t, want, c.running, "Running pods")
}
