//go:build e2e && scale

package e2e

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/imagefamily"
)

// scaleParams size one run of the scale suite; scripts/scale.sh sets them from small|full.
type scaleParams struct {
	pods      int           // NAPKIT_SCALE_PODS: pending pods of the scale-up, a multiple of 50
	bootDelay time.Duration // NAPKIT_SCALE_BOOT_DELAY: VM seen -> Node registered
	// vmCreate is NAPKIT_SCALE_VM_CREATE: how long the simulated Azure takes to create a VM (its
	// long-running operation; the boot delay starts when it succeeds). 0 by default, as before.
	vmCreate time.Duration
	// armLimits is NAPKIT_SCALE_ARM_LIMITS (a bool): the simulated Azure throttles calls with ARM's
	// subscription buckets (reads 250 at 25/s, writes and deletes 200 at 10/s) and the launcher
	// polls at its default 3 s.
	armLimits bool
	// provisionMode is NAPKIT_SCALE_PROVISION_MODE: the launcher's and the controller's mode
	// (default aksscriptless, a NIC and a VM per node; aksmachineapi and aksmachineapiheaderbatch
	// PUT AKS Machines, the latter up to 50 in one request).
	provisionMode imagefamily.Mode
	steady        time.Duration // NAPKIT_SCALE_STEADY: how long the idle steady state is sampled
	churn         time.Duration // NAPKIT_SCALE_CHURN: how long Deployments are scaled at random
	reportPath    string        // NAPKIT_SCALE_REPORT: a file the figures are appended to as JSON lines
	// controllerLog is NAPKIT_SCALE_CONTROLLER_LOG: a file the controller's log is copied to.
	controllerLog string
	// phases is NAPKIT_SCALE_PHASES, a comma-separated subset of steady, down and churn run after
	// the scale-up, in that order ("up" alone: only the scale-up; default: all).
	phases map[string]bool
	// planForScheduler is NAPKIT_SCALE_PLAN_FOR_SCHEDULER (a bool): the controller's
	// Config.PlanForScheduler (default: the controller's default).
	planForScheduler *bool
	// nominatePods is NAPKIT_SCALE_NOMINATE_PODS (off, all, constrained, replanned, predicted): the controller's
	// Config.NominatePods (default: the controller's default).
	nominatePods controller.NominatePolicy
	// nominateMaxUnbound is NAPKIT_SCALE_NOMINATE_MAX_UNBOUND: the controller's
	// Config.NominateMaxUnbound (0, unset: the controller's default).
	nominateMaxUnbound int
	// nominateMaxPending is NAPKIT_SCALE_NOMINATE_MAX_PENDING: the controller's
	// Config.NominateMaxPending (0, unset: the controller's default).
	nominateMaxPending int
	// chainSteps is NAPKIT_SCALE_DISRUPTION_CHAIN_STEPS: the controller's
	// Config.DisruptionChainSteps (0, unset: the controller's default; negative: no chain).
	chainSteps int
	// markUnneeded is NAPKIT_SCALE_MARK_UNNEEDED (a bool): the controller's Config.MarkUnneeded
	// (default false, the binary's --mark-unneeded-nodes).
	markUnneeded bool
	// manyToMany is NAPKIT_SCALE_ALLOW_MANY_TO_MANY (a bool): the controller's
	// Config.Consolidation.AllowManyToMany (default false, the binary's
	// --consolidation-allow-many-to-many).
	manyToMany bool
	// noSystemNode is NAPKIT_SCALE_SYSTEM_NODE=false: the cluster starts with no node at all, as
	// the suite's did before it had a system node (scale_system_test.go), for comparing with those runs.
	noSystemNode bool
	// process is NAPKIT_SCALE_CONTROLLER=process: the controller binary in its own process, so the
	// steady state's memory and CPU are its alone ("test", the default: in the test process).
	process bool
	// heapProfile is NAPKIT_SCALE_HEAP_PROFILE: a file the controller process's heap profile is
	// written to at the end of the steady state (process mode only).
	heapProfile string
	// disruptionInterval and validationDelay are NAPKIT_SCALE_DISRUPTION_INTERVAL and
	// NAPKIT_SCALE_VALIDATION_DELAY: the controller's Config.DisruptionInterval and
	// Config.ValidationDelay (default scaleDisruptionInterval each).
	disruptionInterval, validationDelay time.Duration
	// compareBinary is NAPKIT_SCALE_COMPARE_BINARY (process mode): after the steady state the
	// controller is restarted from this binary, then from the suite's, each measured idle again
	// (compareRestarts): a before/after of a controller change on the same large cluster.
	compareBinary string
}

// quiet is how long the NodeClaims and nodes must stay unchanged for the cluster to count as
// settled: the first chance consolidation has to act on a node emptied at the start
// (consolidateAfter, then a pass and its validation delay), twice over.
func (p scaleParams) quiet() time.Duration {
	return 2 * (scaleConsolidateAfter + p.disruptionInterval + p.validationDelay)
}

// deploymentsPerRun is the number of Deployments the pods come from.
const deploymentsPerRun = 50

func readScaleParams(t *testing.T) scaleParams {
	t.Helper()
	p := scaleParams{pods: 300, bootDelay: 5 * time.Second, steady: 20 * time.Second, churn: 45 * time.Second,
		reportPath: os.Getenv("NAPKIT_SCALE_REPORT"), controllerLog: os.Getenv("NAPKIT_SCALE_CONTROLLER_LOG"),
		phases:             map[string]bool{"steady": true, "down": true, "churn": true},
		disruptionInterval: scaleDisruptionInterval, validationDelay: scaleDisruptionInterval}
	if v := os.Getenv("NAPKIT_SCALE_PHASES"); v != "" {
		p.phases = map[string]bool{}
		for _, name := range strings.Split(v, ",") {
			if !slices.Contains([]string{"up", "steady", "down", "churn"}, name) {
				t.Fatalf("NAPKIT_SCALE_PHASES=%q: %q is not a phase (up, steady, down, churn)", v, name)
			}
			p.phases[name] = true
		}
	}
	if v := os.Getenv("NAPKIT_SCALE_PLAN_FOR_SCHEDULER"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			t.Fatalf("NAPKIT_SCALE_PLAN_FOR_SCHEDULER=%q: want true or false", v)
		}
		p.planForScheduler = &b
	}
	if v := os.Getenv("NAPKIT_SCALE_NOMINATE_PODS"); v != "" {
		policy, err := controller.ParseNominatePolicy(v)
		if err != nil {
			t.Fatalf("NAPKIT_SCALE_NOMINATE_PODS: %v", err)
		}
		p.nominatePods = policy
	}
	if v := os.Getenv("NAPKIT_SCALE_NOMINATE_MAX_UNBOUND"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("NAPKIT_SCALE_NOMINATE_MAX_UNBOUND=%q: want an integer", v)
		}
		p.nominateMaxUnbound = n
	}
	if v := os.Getenv("NAPKIT_SCALE_NOMINATE_MAX_PENDING"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("NAPKIT_SCALE_NOMINATE_MAX_PENDING=%q: want an integer", v)
		}
		p.nominateMaxPending = n
	}
	if v := os.Getenv("NAPKIT_SCALE_DISRUPTION_CHAIN_STEPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("NAPKIT_SCALE_DISRUPTION_CHAIN_STEPS=%q: want an integer", v)
		}
		p.chainSteps = n
	}
	for _, b := range []struct {
		env string
		to  *bool
	}{{"NAPKIT_SCALE_MARK_UNNEEDED", &p.markUnneeded}, {"NAPKIT_SCALE_ARM_LIMITS", &p.armLimits},
		{"NAPKIT_SCALE_ALLOW_MANY_TO_MANY", &p.manyToMany}} {
		if v := os.Getenv(b.env); v != "" {
			parsed, err := strconv.ParseBool(v)
			if err != nil {
				t.Fatalf("%s=%q: want true or false", b.env, v)
			}
			*b.to = parsed
		}
	}
	if v := os.Getenv("NAPKIT_SCALE_SYSTEM_NODE"); v != "" {
		with, err := strconv.ParseBool(v)
		if err != nil {
			t.Fatalf("NAPKIT_SCALE_SYSTEM_NODE=%q: want true or false", v)
		}
		p.noSystemNode = !with
	}
	if v := os.Getenv("NAPKIT_SCALE_PROVISION_MODE"); v != "" {
		mode, err := imagefamily.Mode(v).Resolve()
		if err != nil || mode == imagefamily.ModeBootstrappingClient {
			t.Fatalf("NAPKIT_SCALE_PROVISION_MODE=%q: want %s, %s or %s", v, imagefamily.ModeScriptless, imagefamily.ModeMachineAPI, imagefamily.ModeMachineAPIHeaderBatch)
		}
		p.provisionMode = mode
	}
	switch v := os.Getenv("NAPKIT_SCALE_CONTROLLER"); v {
	case "", "test":
	case "process":
		p.process, p.heapProfile = true, os.Getenv("NAPKIT_SCALE_HEAP_PROFILE")
		p.compareBinary = os.Getenv("NAPKIT_SCALE_COMPARE_BINARY")
	default:
		t.Fatalf("NAPKIT_SCALE_CONTROLLER=%q: want test (the controller in the test process) or process (its own)", v)
	}
	if v := os.Getenv("NAPKIT_SCALE_PODS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n%deploymentsPerRun != 0 {
			t.Fatalf("NAPKIT_SCALE_PODS=%q: want a positive multiple of %d", v, deploymentsPerRun)
		}
		p.pods = n
	}
	for _, d := range []struct {
		env string
		to  *time.Duration
	}{{"NAPKIT_SCALE_BOOT_DELAY", &p.bootDelay}, {"NAPKIT_SCALE_VM_CREATE", &p.vmCreate}, {"NAPKIT_SCALE_STEADY", &p.steady},
		{"NAPKIT_SCALE_CHURN", &p.churn}, {"NAPKIT_SCALE_DISRUPTION_INTERVAL", &p.disruptionInterval},
		{"NAPKIT_SCALE_VALIDATION_DELAY", &p.validationDelay}} {
		v := os.Getenv(d.env)
		if v == "" {
			continue
		}
		parsed, err := time.ParseDuration(v)
		if err != nil || parsed < 0 {
			t.Fatalf("%s=%q: want a non-negative duration such as 30s", d.env, v)
		}
		*d.to = parsed
	}
	return p
}

// Karpenter's scheduling benchmark draws pod requests from these (pkg/controllers/provisioning/
// scheduling/scheduling_benchmark_test.go; see ../shared/reference/karpenter-core.md, 3.1).
var (
	benchmarkCPUs     = []string{"100m", "250m", "500m", "1", "1500m"}
	benchmarkMemories = []string{"100Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
)

// scaleShape is one Deployment of the mix.
type scaleShape struct {
	name, cpu, memory string
	// zoneSpread adds a zonal topology spread (maxSkew 1, DoNotSchedule); antiAffinity a required
	// hostname anti-affinity to its own pods (one pod per node).
	zoneSpread, antiAffinity bool
}

// scaleShapes is the mix: every shape of the benchmark's cpu x memory grid, one Deployment in ten
// spread over zones and one in ten anti-affine per host.
func scaleShapes() []scaleShape {
	out := make([]scaleShape, deploymentsPerRun)
	for i := range out {
		out[i] = scaleShape{name: fmt.Sprintf("shape-%02d", i), cpu: benchmarkCPUs[i%len(benchmarkCPUs)],
			memory:     benchmarkMemories[(i/len(benchmarkCPUs))%len(benchmarkMemories)],
			zoneSpread: i%10 == 3, antiAffinity: i%10 == 7}
	}
	return out
}

func (s scaleShape) deployment(ns string, replicas int32) *appsv1.Deployment {
	d := deployment(ns, s.name, replicas, s.cpu)
	spec := &d.Spec.Template.Spec
	spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse(s.memory)
	own := &metav1.LabelSelector{MatchLabels: map[string]string{"app": s.name}}
	if s.zoneSpread {
		spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: api.LabelZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: own}}
	}
	if s.antiAffinity {
		spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: api.LabelHostname, LabelSelector: own}}}}
	}
	// Fast rollouts: the ReplicaSet controller creates pods in slow-start batches anyway.
	d.Spec.ProgressDeadlineSeconds = ptrTo(int32(3600))
	return d
}

// scalePool is the suite's NodePool: on-demand amd64 of any family, consolidation of empty and
// underutilized nodes after 10 s, and the default budget (10 % of the nodes at once).
func scalePool() *unstructured.Unstructured {
	in := func(key string, values ...any) map[string]any {
		return map[string]any{"key": key, "operator": "In", "values": values}
	}
	return nodePoolObject("scale", map[string]any{"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": scaleConsolidateAfter.String()},
		[]any{in(api.LabelArch, "amd64"), in(api.LabelCapacityType, api.CapacityTypeOnDemand)})
}

func ptrTo[T any](v T) *T { return &v }
