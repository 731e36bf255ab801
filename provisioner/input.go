package provisioner

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// Input is everything one planning pass looks at. Solve reads it and never modifies it.
type Input struct {
	// Pods are the pending pods to place. Pods with spec.nodeName set belong in Nodes instead.
	Pods []*corev1.Pod
	// Nodes are the cluster's nodes with the pods bound to them.
	Nodes []ExistingNode
	// InFlight are NodeClaims launched but not yet registered as nodes.
	InFlight []InFlightClaim
	// NodePools are the pools new NodeClaims may come from, each with the instance types it may use.
	NodePools []NodePoolInput
	// DaemonSets add their pods' requests to every node they would run on.
	DaemonSets []*appsv1.DaemonSet
	// PersistentVolumeClaims and PersistentVolumes give the zone requirements of bound volumes.
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	PersistentVolumes      []*corev1.PersistentVolume
	// Namespaces give the labels a pod-affinity namespaceSelector is matched against; without them
	// only an empty namespaceSelector (all namespaces) matches anything.
	Namespaces []*corev1.Namespace
	// CapacityBuffers declare spare headroom, planned as virtual pods after the real ones.
	CapacityBuffers []CapacityBuffer
	// Options tune the solve.
	Options Options
}

// ExistingNode is a node of the cluster and the pods bound to it.
type ExistingNode struct {
	Node *corev1.Node
	// Pods are the pods bound to the node (terminal pods are ignored).
	Pods []*corev1.Pod
	// Initialized is false while the node still boots: its startup taints and the well-known
	// ephemeral taints (not-ready, unreachable, network-unavailable, uninitialized) are then ignored.
	Initialized bool
	// NodePool names the pool the node belongs to; empty means the karpenter.sh/nodepool label.
	NodePool string
}

// InFlightClaim is a NodeClaim that was launched but has no node yet.
type InFlightClaim struct {
	Name         string
	NodePool     string
	InstanceType string
	Zone         string
	CapacityType string
	// Labels are extra labels the node will carry (beyond the pool's and the instance type's).
	Labels map[string]string
	// Pods are the pods already nominated to the claim.
	Pods []*corev1.Pod
}

// NodePoolInput is a NodePool and the catalogue's instance types it may choose from (typically
// the whole catalogue of its node class; the pool's requirements are applied by Solve).
type NodePoolInput struct {
	NodePool      *api.NodePool
	InstanceTypes []*instancetype.InstanceType
}

// CapacityBuffer is spare room to keep: Replicas virtual pods shaped like PodTemplate.
type CapacityBuffer struct {
	Name        string
	PodTemplate corev1.PodTemplateSpec
	Replicas    int
}

// PreferencePolicy says how preferred affinities, ScheduleAnyway spreads and PreferNoSchedule
// taints are treated.
type PreferencePolicy string

const (
	// PreferenceCostAware (the default) honours preferences on capacity the plan opens anyway and
	// never opens a node, or picks a dearer one, only for a preference; what it leaves unmet is
	// reported in Plan.UnmetPreferences.
	PreferenceCostAware PreferencePolicy = "CostAware"
	// PreferenceRespect is Karpenter's policy: preferences are required until relaxed one step at a
	// time in Karpenter's order.
	PreferenceRespect PreferencePolicy = "Respect"
	// PreferenceIgnore drops every preference.
	PreferenceIgnore PreferencePolicy = "Ignore"
)

// MinValuesPolicy says what happens when a NodeClaim cannot keep a requirement's minValues.
type MinValuesPolicy string

const (
	// MinValuesStrict rejects the pod for that NodeClaim (Karpenter's default).
	MinValuesStrict MinValuesPolicy = "Strict"
	// MinValuesBestEffort keeps the pod and lowers minValues to what is achievable, marking the
	// NodeClaim MinValuesRelaxed.
	MinValuesBestEffort MinValuesPolicy = "BestEffort"
)

// DefaultMaxInstanceTypes is Karpenter's launch-list cap.
const DefaultMaxInstanceTypes = 600

// DefaultImproveBudget bounds the improvement phase when Options.ImproveBudget is zero: pod moves
// tried. It is five times what the largest benchmark uses (20,000 generic pods: 199,492 units),
// so it only cuts the phase short on inputs much larger than those.
const DefaultImproveBudget = 1_000_000

// Options tune Solve. The zero value is valid and means the defaults.
type Options struct {
	// PreferencePolicy defaults to PreferenceCostAware.
	PreferencePolicy PreferencePolicy
	// MinValuesPolicy defaults to MinValuesStrict.
	MinValuesPolicy MinValuesPolicy
	// MaxInstanceTypes caps each NodeClaim's launch list; 0 means DefaultMaxInstanceTypes.
	MaxInstanceTypes int
	// Seed breaks ties between equally priced offerings.
	Seed uint64
	// ImproveBudget bounds the improvement phase by work: the pods its trials may take off a
	// NodeClaim (kept or undone). 0 means DefaultImproveBudget, negative disables the phase. It counts
	// work, never time, so the plan does not depend on machine speed or load.
	ImproveBudget int
	// DisableBaseline skips the first-fit-decreasing baseline Solve otherwise also computes, and
	// whose plan it returns when that is cheaper. Only for benchmarks of the main strategy.
	DisableBaseline bool
}

func (o Options) withDefaults() Options {
	if o.PreferencePolicy == "" {
		o.PreferencePolicy = PreferenceCostAware
	}
	if o.MinValuesPolicy == "" {
		o.MinValuesPolicy = MinValuesStrict
	}
	if o.MaxInstanceTypes == 0 {
		o.MaxInstanceTypes = DefaultMaxInstanceTypes
	}
	if o.ImproveBudget == 0 {
		o.ImproveBudget = DefaultImproveBudget
	}
	return o
}
