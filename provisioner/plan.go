package provisioner

import (
	corev1 "k8s.io/api/core/v1"
)

// Plan is the result of Solve. Every slice is sorted, so the same Input gives a byte-identical Plan
// (Stats.SolveMillis aside). The JSON field names are the `napkit plan -o json` contract.
type Plan struct {
	Kind   string `json:"kind"`
	Region string `json:"region,omitempty"`
	// NodeClaims are the new nodes to create, sorted by name.
	NodeClaims []NodeClaim `json:"nodeClaims"`
	// ExistingNodes are the nodes that receive pods, sorted by name.
	ExistingNodes []NodePlacement `json:"existingNodes"`
	// InFlightClaims are the launched-but-unregistered NodeClaims that receive pods, sorted by name.
	InFlightClaims []NodePlacement `json:"inFlightClaims,omitempty"`
	// Unschedulable lists every pod (and capacity-buffer replica) left without a place, with why.
	Unschedulable []Unschedulable `json:"unschedulable"`
	// UnmetPreferences lists the preferences the plan left unmet, per pod.
	UnmetPreferences []UnmetPreference `json:"unmetPreferences,omitempty"`
	Cost             Cost              `json:"cost"`
	Stats            Stats             `json:"stats"`
	// PlacementOrder lists the placed pods ("namespace/name") in the order the simulation placed
	// them, each at its last placement. Only Simulator.Evacuate fills it (Solve leaves it nil, and
	// it is not part of the JSON contract): consolidation lists a command's moves in this order, so
	// that replaying them one by one meets every topology spread at each step, as kube-scheduler
	// checks it, not just at the end.
	PlacementOrder []string `json:"-"`
}

// NodeClaim is one node to create.
type NodeClaim struct {
	Name     string `json:"name"`
	NodePool string `json:"nodePool"`
	// InstanceType and Zone/CapacityType are the cheapest choice; PricePerHour is its full price (VM
	// plus managed OS disk), VMPricePerHour and DiskPricePerHour its two parts.
	InstanceType string `json:"instanceType"`
	// InstanceTypeOptions is the launch list: every compatible instance type that fits the pods,
	// cheapest first, at most Options.MaxInstanceTypes long. NodeClaims packed alike share one
	// backing array: treat it as read-only.
	InstanceTypeOptions []string            `json:"instanceTypeOptions"`
	Zone                string              `json:"zone"`
	CapacityType        string              `json:"capacityType"`
	PricePerHour        float64             `json:"pricePerHour"`
	VMPricePerHour      float64             `json:"vmPricePerHour"`
	DiskPricePerHour    float64             `json:"diskPricePerHour"`
	Capacity            corev1.ResourceList `json:"capacity"`
	Allocatable         corev1.ResourceList `json:"allocatable"`
	// Requests sums the pods' requests and the DaemonSet overhead expected on the node.
	Requests      corev1.ResourceList `json:"requests"`
	Labels        map[string]string   `json:"labels"`
	Taints        []corev1.Taint      `json:"taints"`
	StartupTaints []corev1.Taint      `json:"startupTaints,omitempty"`
	// Pods are "namespace/name", sorted.
	Pods []string `json:"pods"`
	// BufferPods are the capacity-buffer replicas planned on the node ("buffer/<name>-<i>").
	BufferPods []string `json:"bufferPods,omitempty"`
	// MinValuesRelaxed is set when MinValuesBestEffort had to lower a requirement's minValues.
	MinValuesRelaxed bool `json:"minValuesRelaxed,omitempty"`
}

// NodePlacement lists the pods placed on an existing node or an in-flight NodeClaim.
type NodePlacement struct {
	Name       string   `json:"name"`
	Pods       []string `json:"pods"`
	BufferPods []string `json:"bufferPods,omitempty"`
}

// Unschedulable is a pod the plan cannot place, with a structured reason.
type Unschedulable struct {
	Pod    string `json:"pod"`
	Code   Code   `json:"code"`
	Reason string `json:"reason"`
	// CapacityBuffer names the buffer when the entry is a virtual buffer pod.
	CapacityBuffer string `json:"capacityBuffer,omitempty"`
}

// UnmetPreference is a preference of a placed pod that the plan did not honour.
type UnmetPreference struct {
	Pod        string `json:"pod"`
	Preference string `json:"preference"`
}

// Cost is the plan's full price (VMs plus managed OS disks), its two parts, and a lower bound on the
// full price of any plan placing the same pods.
type Cost struct {
	PricePerHour      float64 `json:"pricePerHour"`
	VMPricePerHour    float64 `json:"vmPricePerHour"`
	DiskPricePerHour  float64 `json:"diskPricePerHour"`
	LowerBoundPerHour float64 `json:"lowerBoundPerHour"`
}

// Stats describe the solve.
type Stats struct {
	Pods          int    `json:"pods"`
	Placed        int    `json:"placed"`
	Unschedulable int    `json:"unschedulable"`
	NewNodeClaims int    `json:"newNodeClaims"`
	PodClasses    int    `json:"podClasses"`
	Strategy      string `json:"strategy"`
	// SolveMillis is the only field that differs between runs on the same input.
	SolveMillis int64 `json:"solveMillis"`
}

// Strategy names reported in Stats.Strategy.
const (
	StrategyNapkit = "napkit"
	StrategyFFD    = "first-fit-decreasing"
)
