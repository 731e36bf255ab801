package consolidation

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/provisioner"
)

// Input is the cluster snapshot one decision looks at. Decide reads it and never modifies it.
type Input struct {
	// Nodes are the cluster's nodes, each with its NodeClaim (when known) and bound pods.
	Nodes []Node
	// PendingPods are pods no node has taken yet; they are placed in every simulation but never
	// block a command (Karpenter's rule: pods that were already pending do not count).
	PendingPods []*corev1.Pod
	// InFlight are NodeClaims launched but not yet registered.
	InFlight []provisioner.InFlightClaim
	// NodePools are the pools with the instance types they may use (as for the provisioner).
	NodePools []provisioner.NodePoolInput
	// NodeClasses are the AKSNodeClasses the pools reference; drift compares nodes against them.
	NodeClasses []*api.AKSNodeClass
	// PodDisruptionBudgets guard evictions. Each allows what PDBAllowance says (the status when it
	// is current, else computed from the spec and the pods), and the pass's commands together never
	// evict more than that (see pdbpace.go).
	PodDisruptionBudgets []*policyv1.PodDisruptionBudget
	// DaemonSets, volumes and namespaces are passed through to the provisioner's simulation.
	DaemonSets             []*appsv1.DaemonSet
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	PersistentVolumes      []*corev1.PersistentVolume
	Namespaces             []*corev1.Namespace
	// Now is the decision time: consolidateAfter, expireAfter, budget schedules and pod
	// do-not-disrupt durations are measured against it. It is required.
	Now time.Time
	// Cluster is the cluster-level configuration nodes are judged against for drift (kubelet
	// identity, network); its zero value judges neither.
	Cluster ClusterConfig
	// Options tune the decision.
	Options Options
}

// Node is one node of the cluster as consolidation sees it.
type Node struct {
	Node *corev1.Node
	// NodeClaim is the node's NodeClaim; nil means the node is described by its labels alone
	// (nodepool, instance type, zone, capacity type), which is what `napkit consolidate` reads.
	NodeClaim *api.NodeClaim
	// Pods are the pods bound to the node, and the unbound pods nominated to it
	// (status.nominatedNodeName), whose room kube-scheduler keeps for them.
	Pods []*corev1.Pod
	// Initialized is false while the node still boots; such a node is neither a candidate nor a
	// destination.
	Initialized bool
	// InitializedAt is when the node became initialized; zero means the Node's creation time.
	InitializedAt time.Time
	// LastPodEventAt is the last time a pod was bound to or left the node; zero means
	// NodeClaim.Status.LastPodEventTime, else InitializedAt.
	LastPodEventAt time.Time
	// Deleting marks a node already being removed (deletion timestamp, or a command in progress);
	// it counts against budgets and is not a candidate.
	Deleting bool
	// Departing marks a node being deleted that is expected gone before any command of this
	// decision runs: the caller decides ahead, while the node's delete finishes, and runs a command
	// only after a validation (Validate, after the validation delay) that sees the node gone and
	// counts the budgets again. A departing node is Deleting in every other respect (not a
	// candidate nor a destination, its pods placed in every simulation), but the budgets count it
	// neither among the pool's nodes nor among its disrupting ones, so it holds no budget the
	// decision could use once it is gone. Nothing changes the budget at the moment a command runs.
	Departing bool
	// Nominated marks a node the provisioner recently planned pending pods onto, or that pods
	// nominated to it wait for; it is not a candidate.
	Nominated bool
}

// Options tune Decide. The zero value is Karpenter's behaviour.
type Options struct {
	// SpotToSpot allows replacing spot nodes with cheaper spot nodes (Karpenter's
	// SpotToSpotConsolidation feature gate, default off).
	SpotToSpot bool
	// AllowSplit allows replacing one node by two cheaper ones, as one command.
	AllowSplit bool
	// AllowManyToMany allows M -> N moves (N > 1), as one command.
	AllowManyToMany bool
	// MaxCommands caps the consolidation commands of one pass (emptiness, drift and expiration are
	// not capped); 0 means no cap.
	MaxCommands int
	// UnpacedPDBs turns off counting evictions against PDB allowances across the pass: a PDB then
	// only blocks a node while it allows 0 disruptions, as in Karpenter, and a command may ask it
	// for more evictions than it allows. It exists to measure what pacing costs; a plan made with
	// it counts on evictions the eviction API will refuse.
	UnpacedPDBs bool
	// MinReplaceSavings is the least fraction of the removed nodes' price a consolidation replace
	// must save (0.1: the replacements' worst launch price is at most 90 % of it: dearer types are
	// dropped from the replacement's launch list, and the replace is proposed when a type is left);
	// deletes are not affected. Zero is Karpenter's rule, any saving. Karpenter has no such option (its answer to
	// churn is the Balanced policy; the "price improvement factor" of kubernetes-sigs/karpenter
	// #1440, #2561 and #2977 was proposed, not merged): this is napkit's, for replaces that save a
	// cent an hour yet evict every pod of a node and launch another. Values outside [0, 1) are an
	// input error.
	MinReplaceSavings float64
	// Provisioner tunes the scheduling simulations (seed, preference policy, time budget).
	Provisioner provisioner.Options
	// SkipUnderutilized leaves out the Underutilized method (multi- and single-node consolidation,
	// a pass's costliest part). A caller sets it while nothing that could make a consolidation
	// possible has changed since a pass that found none and was not held back by a budget
	// (Stats.UnderutilizedBudgetBound), as Karpenter's consolidation methods skip their work while
	// the cluster is marked consolidated (its cluster state's ConsolidationState, looked at again
	// at least every 5 minutes). Expiration, emptiness and drift run as always.
	SkipUnderutilized bool `json:"-"`
	// Stop, when closed, ends Decide or Validate before their next scheduling simulation with an
	// error wrapping ErrStopped: a pass over thousands of nodes takes seconds, and a controller
	// shutting down (its context's Done channel) must not wait for it. It is read, never
	// written, so a pass that is not stopped returns the same plan as without it; nil never stops.
	Stop <-chan struct{} `json:"-"`
}

// Plan is the result of Decide. Every slice is sorted; the JSON field names are the
// `napkit consolidate -o json` contract.
type Plan struct {
	Kind     string    `json:"kind"`
	Commands []Command `json:"commands"`
	// Deferred lists commands the pass found but held back because their evictions would overdraw
	// a PodDisruptionBudget's allowance; a later pass, once the PDB allows again, takes them up.
	Deferred []Deferred `json:"deferred"`
	// Blocked lists nodes that were not candidates, with why.
	Blocked []Blocked `json:"blocked"`
	Stats   Stats     `json:"stats"`
}

// PlanKind is Plan.Kind.
const PlanKind = "ConsolidationPlan"

// CommandKind says what a command does to its nodes.
type CommandKind string

// The command kinds.
const (
	CommandDelete  CommandKind = "delete"
	CommandReplace CommandKind = "replace"
)

// Reason is why a command disrupts its nodes; budgets are scoped by it.
type Reason string

// The reasons.
const (
	ReasonEmpty         Reason = "Empty"
	ReasonUnderutilized Reason = "Underutilized"
	ReasonDrifted       Reason = "Drifted"
	ReasonExpired       Reason = "Expired"
)

// Command is one action: delete Nodes, after launching Replacements if any.
type Command struct {
	Kind   CommandKind `json:"kind"`
	Reason Reason      `json:"reason"`
	// Detail refines the reason (the drift kind: NodePoolDrifted, RequirementsDrifted,
	// InstanceTypeNotFound, NodeClassDrifted, KubernetesVersionDrifted, KubeletIdentityDrifted,
	// ClusterConfigDrifted, ImageDrifted; or the method that found it).
	Detail string `json:"detail,omitempty"`
	// Changed says, for a drift command, what changed: one line per changed field or setting
	// ("spec.osDiskSizeGB", "kubernetesVersion 1.33.2 -> 1.34.0", "image <old ID> -> <new ID>").
	Changed []string `json:"changed,omitempty"`
	Nodes   []string `json:"nodes"`
	// Replacement is the single replacement NodeClaim, or null for a delete. For 1 -> 2 and M -> N
	// commands it is the first of Replacements.
	Replacement  *provisioner.NodeClaim  `json:"replacement"`
	Replacements []provisioner.NodeClaim `json:"replacements,omitempty"`
	// SavingsPerHour is the removed nodes' price minus the replacements' (worst launch) price.
	SavingsPerHour float64 `json:"savingsPerHour"`
	// DisruptionCost is the summed disruption cost of the removed nodes.
	DisruptionCost float64 `json:"disruptionCost"`
	// Moves say where the simulation put every pod that has to move, in the order it placed them:
	// replayed one by one in this order, every move meets the pods' topology spreads and
	// anti-affinity as kube-scheduler would check them at that step. A drain evicts in this order.
	Moves []Move `json:"moves"`
	// PacedBy names (namespace/name) the PDBs this command asks for more evictions than they allow
	// now: a single node holding more of an app's pods than its PDB ever allows at once. No other
	// command of the pass touches these PDBs; the drain evicts one allowance at a time, waiting
	// for the PDB to allow again in between.
	PacedBy []string `json:"pacedBy,omitempty"`
}

// Deferred is a command held back for a later pass because its drain would ask a
// PodDisruptionBudget for more evictions than the pass has left of its allowance.
type Deferred struct {
	Kind   CommandKind `json:"kind"`
	Reason Reason      `json:"reason"`
	Detail string      `json:"detail,omitempty"`
	Nodes  []string    `json:"nodes"`
	// SavingsPerHour is what the command would have saved in this pass.
	SavingsPerHour float64 `json:"savingsPerHour"`
	// Budgets are the PDBs it would overdraw, sorted.
	Budgets []DeferredBudget `json:"budgets"`
}

// DeferredBudget is one PDB a deferred command would overdraw.
type DeferredBudget struct {
	// PodDisruptionBudget is namespace/name.
	PodDisruptionBudget string `json:"podDisruptionBudget"`
	// Evictions are what the command's drain asks of it.
	Evictions int `json:"evictions"`
	// Allowed is what the PDB had left when the command was considered.
	Allowed int `json:"allowed"`
}

// Move is one pod leaving a removed node.
type Move struct {
	Pod string `json:"pod"`
	To  string `json:"to"`
}

// Blocked is a node that was not considered, with the rule that kept it.
type Blocked struct {
	Node   string `json:"node"`
	Reason string `json:"reason"`
}

// Stats describe the pass.
type Stats struct {
	Nodes      int `json:"nodes"`
	Candidates int `json:"candidates"`
	// Simulations counts the provisioner simulations the pass ran.
	Simulations int `json:"simulations"`
	// SavingsPerHour sums the commands' savings.
	SavingsPerHour float64 `json:"savingsPerHour"`
	// Evictions counts the pods the commands move.
	Evictions int `json:"evictions"`
	// EvictionsPerDollar is Evictions divided by the hourly savings (0 when nothing is saved).
	EvictionsPerDollar float64 `json:"evictionsPerDollar"`
	// DecideMillis is the only field that differs between runs on the same input.
	DecideMillis int64 `json:"decideMillis"`
	// UnderutilizedBudgetBound reports that a budget kept the Underutilized method from weighing
	// the candidates as a later pass might: a pool's budget allowed none of them, or fewer under a
	// budget with a schedule, or the pass's earlier commands spent what it needed. A pass that
	// found nothing then does not show that the next one would find nothing. Not in the JSON: it
	// is for a caller's Options.SkipUnderutilized.
	UnderutilizedBudgetBound bool `json:"-"`
}
