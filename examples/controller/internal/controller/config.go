package controller

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/provisioner"
)

// DefaultMaxConcurrentLaunches is Config.MaxConcurrentLaunches unset. A launch holds its slot
// through the VM create's long-running operation, tens of seconds on Azure, so the slots bound
// the launch rate to slots per create time: with 10 slots and a 30 s VM create, the scale suite's
// 1,000-pod burst launched its 52 NodeClaims in waves of 10 every 30 s (docs/benchmarks.md,
// issue 18, ninth session). Karpenter reconciles at least 1,000
// NodeClaims at once (kubernetes-sigs/karpenter pkg/controllers/nodeclaim/lifecycle/controller.go,
// minReconciles), and Azure's provider waits for each create on a goroutine of its own
// (Azure/karpenter-provider-azure pkg/cloudprovider/cloudprovider.go, handleInstancePromise).
const DefaultMaxConcurrentLaunches = 1000

// Config is everything the controller needs; New checks it. Nothing here is read from globals or
// the environment: main builds it from flags. Zero durations and counts mean the defaults below.
type Config struct {
	// Kube serves core objects (pods, nodes, PDBs, DaemonSets, events, leases, evictions).
	Kube kubernetes.Interface
	// Dynamic serves the karpenter.sh and karpenter.azure.com custom resources.
	Dynamic dynamic.Interface
	// Launcher creates and deletes the VMs (the Azure launcher, or one on the simulated Azure). When
	// it also has CollectGarbage (as *azure.Launcher does), orphan VMs are collected.
	Launcher launch.Launcher
	// Offerings is the unavailable-offerings cache the launcher marks; the controller reads it when
	// it picks an offering. Nil means a private, empty one.
	Offerings *launch.UnavailableOfferings
	// Catalogue returns the instance types a node class may use (see NewCatalogue).
	Catalogue CatalogueFunc
	// ClusterName tags the VMs and names the cluster in bootstrap data.
	ClusterName string
	// Cluster and Images are imagefamily.Generate's cluster-wide inputs; SSHPublicKey is the
	// nodes' admin key (password login is off).
	Cluster      bootstrap.Cluster
	Images       imagefamily.ImageOptions
	SSHPublicKey string
	// ProvisionMode is how nodes are made ("" is aksscriptless: a NIC and a VM with the bootstrap
	// script as custom data); it must be the Launcher's, since the launch request carries what
	// the mode needs (an AKS Machine body in the Machine API modes). The controller builds no
	// node-bootstrapping client, so bootstrappingclient is refused.
	ProvisionMode imagefamily.Mode
	// NodeIdentities are the user-assigned managed identity resource IDs every VM gets (the kubelet
	// identity among them); DiskEncryptionSetID, when set, encrypts the nodes' managed OS disks.
	NodeIdentities      []string
	DiskEncryptionSetID string
	// Logger receives structured logs (discarded when nil); Metrics receives the karpenter_*
	// metrics and is what /metrics serves (a new registry when nil).
	Logger  *slog.Logger
	Metrics *prometheus.Registry
	// Clock is the time source (time.Now when nil).
	Clock func() time.Time
	// BatchIdle and BatchMax bound how pending pods are batched (1 s and 10 s).
	BatchIdle, BatchMax time.Duration
	// WaitForScheduler plans a pod only once kube-scheduler has marked it Unschedulable
	// (Karpenter's rule). Off (the default), every unbound pod not held at a scheduling gate is
	// batched as it appears, and the plan puts what fits on existing nodes and in-flight
	// NodeClaims first: a burst of pods is then planned at once instead of at the pace
	// kube-scheduler gives verdicts, which on a busy control plane took tens of seconds for
	// 1,000 pods (docs/benchmarks.md, "Controller at scale").
	WaitForScheduler bool
	// PlannedPodGrace is how long after its node initialized (or after the plan, if later) a
	// pending pod stays counted against the NodeClaim or node a plan put it on, instead of being
	// planned again: the time kube-scheduler gets to bind it (plannedPods says why). Default:
	// twice BatchMax, at least 10 s (Karpenter's nomination window); negative turns holding off.
	PlannedPodGrace time.Duration
	// PlanForScheduler replays kube-scheduler's default placement (package schedreplay) of each
	// batch's pods onto the batch's new NodeClaims and plans more claims, in the same batch, for
	// the pods the replay predicts it will leave without room (coverOrphans says why).
	PlanForScheduler bool
	// NominatePods picks the pending pods whose status.nominatedNodeName the controller sets to
	// the node a plan put them on, as that node registers (NominatePolicy says why; "" is
	// NominatePredicted). Each nomination is one pods/status patch.
	NominatePods NominatePolicy
	// NominateMaxUnbound bounds the pods nominated and not yet bound at once (counting every
	// unbound pod with a status.nominatedNodeName); the pods over it stay held and are nominated
	// as kube-scheduler binds others. kube-scheduler adds a node's nominated pods to it before
	// filtering it for every pod it tries, so thousands outstanding made it CPU-bound at 10,000
	// pods. 0 is DefaultNominateMaxUnbound; negative is no bound.
	NominateMaxUnbound int
	// NominateMaxPending stops nominations while more pods than this are unbound (pending) in the
	// cluster: kube-scheduler pays for the nominated pods of a node in every attempt it makes
	// there, and a burst of thousands of pending pods makes thousands of attempts. At 10,000
	// pods, --nominate-pods=all took 640.8 s to all Running against 345.2-367.4 s without
	// (docs/benchmarks.md, issue 18, twelfth session), and 390.0 s with this bound; at 1,000 it
	// took 63-102 s against 108-141 s. Once the burst drains under the bound, the held pods are
	// nominated as usual.
	// 0 is DefaultNominateMaxPending; negative is no bound.
	NominateMaxPending int
	// DisruptionInterval is the longest a disruption pass (consolidation, drift, expiration) that
	// started nothing waits before the next (10 s, Karpenter's polling period); it waits less when
	// a node may become a candidate or a disrupted node is gone (idleWait).
	DisruptionInterval time.Duration
	// ConsolidatedRecheck is how long a disruption pass that found nothing to consolidate is
	// trusted while nothing changes (consolidatedMemo): 0 is DefaultConsolidatedRecheck, negative
	// re-decides every pass.
	ConsolidatedRecheck time.Duration
	// ValidationDelay is how long a disruption command waits before it is re-decided and, if still
	// proposed, executed (15 s, Karpenter's commandValidationDelay).
	ValidationDelay time.Duration
	// DisruptionChainSteps is how many passes a disruption pass that proposes deletes decides
	// ahead of them (decideChain): validated after the same delay, each started once the nodes
	// before it are gone, within the budget at every moment. 0 is DefaultDisruptionChainSteps;
	// negative decides one pass at a time, as Karpenter does.
	DisruptionChainSteps int
	// MarkUnneeded keeps napkit's deletion-candidate taint (PreferNoSchedule) on the nodes
	// consolidation would remove if its budgets and consolidateAfter allowed it now
	// (consolidation.Unneeded), so kube-scheduler sends new and evicted pods elsewhere while they
	// wait their turn (markUnneeded says why); off, no node is tainted.
	MarkUnneeded bool
	// ReplacementTimeout bounds the wait for a command's replacements to initialize (10 min).
	ReplacementTimeout time.Duration
	// RegistrationTimeout deletes a launched NodeClaim whose node never registered (15 min).
	RegistrationTimeout time.Duration
	// OwnWriteWait bounds how long a registration waits for the claim cache to show its own
	// write (1 s; negative: no wait). The Node's update requeues the claim at once, and a
	// reconcile that read the claim before the cache had the Registered status registered the
	// node again: with 100 reconcilers a 10,000-pod burst logged 1,965 registrations for 973
	// nodes, each repeat a Node update, a status update refused as a conflict and a read.
	// Karpenter's nodeclaim.lifecycle sleeps 1 s after its patches for the same reason.
	OwnWriteWait time.Duration
	// GCInterval and GCGracePeriod drive garbage collection of VMs no NodeClaim owns (1 min, 30 s).
	GCInterval, GCGracePeriod time.Duration
	// MaxConcurrentLaunches bounds launches in flight (DefaultMaxConcurrentLaunches); Workers is the
	// number of Node reconcilers (4).
	MaxConcurrentLaunches, Workers int
	// ClaimWorkers is the number of NodeClaim reconcilers (DefaultClaimWorkers).
	ClaimWorkers int
	// Seed makes offering tie-breaks reproducible.
	Seed uint64
	// Provisioner and Consolidation tune the library's decisions. The zero Consolidation is
	// Karpenter's rule; the binary sets MinReplaceSavings to DefaultMinReplaceSavings.
	Provisioner   provisioner.Options
	Consolidation consolidation.Options
	// Upkeep keeps nodes current (AKSNodeClass status, repair, quota).
	Upkeep Upkeep
	// MetricsAddr, when set, serves /metrics there (e.g. ":8080"); HealthAddr serves /healthz and
	// /readyz (e.g. ":8081"). The same address for both serves all three on one listener.
	MetricsAddr, HealthAddr string
	// LeaderElection, when set, names the Lease namespace/name the controller must hold to act.
	LeaderElectionNamespace, LeaderElectionName, Identity string
}

// DefaultMinReplaceSavings is the binary's --consolidation-min-replace-savings: a consolidation
// replace must save at least 10 % of the removed nodes' price. It is napkit's default, not
// Karpenter's (Karpenter replaces for any saving; consolidation.Options.MinReplaceSavings says
// why). Measured in the scale suite (docs/benchmarks.md, issue 18, third session): the replaces
// under 10 % saved $0.001-0.027/h (0.7-10 % of a $0.13-0.27/h node) yet each evicted its pods,
// launched a node and held the scale-down for another pass; the replaces of a B2as_v2 by a
// B2als_v2 (45 %) and the multi-node merges (over 50 %) pass it.
const DefaultMinReplaceSavings = 0.1

// DefaultClaimWorkers is Config.ClaimWorkers' default. A NodeClaim's registration is two writes
// (the Node, the claim's status), each waiting on the API server's latency, about a second under
// a burst's load: with 4 reconcilers a 10,000-pod burst's ~1,000 nodes were registered at ~4 a
// second, 1-3 minutes after their kubelets (docs/benchmarks.md, issue 18, twelfth session), and
// pods cannot land before. Karpenter runs its nodeclaim.lifecycle controller with at least 1,000
// concurrent reconciles for the same reason (kubernetes-sigs/karpenter
// pkg/controllers/nodeclaim/lifecycle/controller.go: minReconciles); the controller's client
// limit (--kube-api-qps) bounds the writes either way.
const DefaultClaimWorkers = 100

// withDefaults returns c with every zero option filled in.
func (c Config) withDefaults() Config {
	defaultDuration(&c.BatchIdle, time.Second)
	defaultDuration(&c.BatchMax, 10*time.Second)
	defaultDuration(&c.PlannedPodGrace, max(2*c.BatchMax, 10*time.Second))
	defaultDuration(&c.DisruptionInterval, 10*time.Second)
	defaultDuration(&c.ValidationDelay, 15*time.Second)
	defaultDuration(&c.ConsolidatedRecheck, DefaultConsolidatedRecheck)
	defaultDuration(&c.ReplacementTimeout, 10*time.Minute)
	defaultDuration(&c.RegistrationTimeout, 15*time.Minute)
	defaultDuration(&c.OwnWriteWait, time.Second)
	defaultDuration(&c.GCInterval, time.Minute)
	defaultDuration(&c.GCGracePeriod, 30*time.Second)
	if c.NominatePods == "" {
		c.NominatePods = NominatePredicted
	}
	if c.NominateMaxUnbound == 0 {
		c.NominateMaxUnbound = DefaultNominateMaxUnbound
	}
	if c.NominateMaxPending == 0 {
		c.NominateMaxPending = DefaultNominateMaxPending
	}
	if c.DisruptionChainSteps == 0 {
		c.DisruptionChainSteps = DefaultDisruptionChainSteps
	}
	if c.MaxConcurrentLaunches == 0 {
		c.MaxConcurrentLaunches = DefaultMaxConcurrentLaunches
	}
	if c.Workers == 0 {
		c.Workers = 4
	}
	if c.ClaimWorkers == 0 {
		c.ClaimWorkers = DefaultClaimWorkers
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.Metrics == nil {
		c.Metrics = prometheus.NewRegistry()
	}
	if c.Offerings == nil {
		c.Offerings = launch.NewUnavailableOfferings(c.Clock)
	}
	c.Upkeep = c.Upkeep.withDefaults()
	if c.Cluster.ClusterName == "" {
		c.Cluster.ClusterName = c.ClusterName
	}
	return c
}

func defaultDuration(d *time.Duration, def time.Duration) {
	if *d == 0 {
		*d = def
	}
}

// validate reports every missing or contradictory option.
func (c Config) validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"Kube", c.Kube != nil}, {"Dynamic", c.Dynamic != nil}, {"Launcher", c.Launcher != nil},
		{"Catalogue", c.Catalogue != nil}, {"ClusterName", c.ClusterName != ""}, {"SSHPublicKey", c.SSHPublicKey != ""},
	} {
		if !f.ok {
			errs = append(errs, fmt.Errorf("%s is required", f.name))
		}
	}
	if c.BatchIdle > c.BatchMax {
		errs = append(errs, fmt.Errorf("BatchIdle %s exceeds BatchMax %s", c.BatchIdle, c.BatchMax))
	}
	if c.MaxConcurrentLaunches < 0 || c.Workers < 0 || c.ClaimWorkers < 0 {
		errs = append(errs, errors.New("MaxConcurrentLaunches, Workers and ClaimWorkers must not be negative"))
	}
	if c.LeaderElectionName != "" && (c.LeaderElectionNamespace == "" || c.Identity == "") {
		errs = append(errs, errors.New("LeaderElectionName needs LeaderElectionNamespace and Identity"))
	}
	if _, err := ParseNominatePolicy(string(c.NominatePods)); err != nil {
		errs = append(errs, fmt.Errorf("NominatePods: %w", err))
	}
	if mode, err := c.ProvisionMode.Resolve(); err != nil {
		errs = append(errs, fmt.Errorf("ProvisionMode: %w", err))
	} else if mode == imagefamily.ModeBootstrappingClient {
		errs = append(errs, fmt.Errorf("ProvisionMode %s: the controller has no node-bootstrapping client; use %s or a Machine API mode", mode, imagefamily.ModeScriptless))
	}
	if c.Upkeep.ImageVersions == nil && c.Cluster.KubernetesVersion == "" {
		errs = append(errs, errors.New("Cluster.KubernetesVersion is required when Upkeep.ImageVersions is nil (no AKSNodeClass status to boot from)"))
	}
	if err := c.Cluster.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("Cluster: %w", err))
	}
	if len(errs) > 0 {
		return fmt.Errorf("controller config: %w", errors.Join(errs...))
	}
	return nil
}
