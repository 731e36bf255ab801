package api

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodePool is karpenter.sh/v1 NodePool: what nodes may be created, and how they may be disrupted.
type NodePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              NodePoolSpec   `json:"spec"`
	Status            NodePoolStatus `json:"status,omitempty"`
}

// NodePoolSpec is the desired state of a NodePool.
type NodePoolSpec struct {
	Template   NodeClaimTemplate `json:"template"`
	Disruption Disruption        `json:"disruption,omitempty"`
	// Limits caps the total resources (any resource name, including "nodes") of the pool's nodes.
	Limits corev1.ResourceList `json:"limits,omitempty"`
	// Weight orders NodePools (higher first); 1-100, unset is 0.
	Weight *int32 `json:"weight,omitempty"`
	// Replicas makes the pool static (alpha): a fixed node count.
	Replicas *int64 `json:"replicas,omitempty"`
}

// NodeClaimTemplate is what every NodeClaim of the pool starts from.
type NodeClaimTemplate struct {
	ObjectMeta TemplateObjectMeta    `json:"metadata,omitempty"`
	Spec       NodeClaimTemplateSpec `json:"spec"`
}

// TemplateObjectMeta carries the labels and annotations copied onto NodeClaims and Nodes.
type TemplateObjectMeta struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// NodeClaimTemplateSpec is the part of NodeClaimSpec a NodePool sets.
type NodeClaimTemplateSpec struct {
	Taints                 []corev1.Taint                         `json:"taints,omitempty"`
	StartupTaints          []corev1.Taint                         `json:"startupTaints,omitempty"`
	Requirements           []NodeSelectorRequirementWithMinValues `json:"requirements,omitempty"`
	NodeClassRef           *NodeClassReference                    `json:"nodeClassRef,omitempty"`
	TerminationGracePeriod *metav1.Duration                       `json:"terminationGracePeriod,omitempty"`
	ExpireAfter            NillableDuration                       `json:"expireAfter,omitzero"`
}

// NodeSelectorRequirementWithMinValues is a node selector requirement plus Karpenter's minValues: the
// least number of distinct values the launch list must keep for the key.
type NodeSelectorRequirementWithMinValues struct {
	Key       string                      `json:"key"`
	Operator  corev1.NodeSelectorOperator `json:"operator"`
	Values    []string                    `json:"values,omitempty"`
	MinValues *int                        `json:"minValues,omitempty"`
}

// NodeClassReference points at the provider's node class (an AKSNodeClass for napkit).
type NodeClassReference struct {
	Group string `json:"group,omitempty"`
	Kind  string `json:"kind,omitempty"`
	Name  string `json:"name"`
}

// ConsolidationPolicy says which nodes consolidation may act on.
type ConsolidationPolicy string

// The consolidation policies karpenter.sh/v1 defines.
const (
	ConsolidationPolicyWhenEmpty                ConsolidationPolicy = "WhenEmpty"
	ConsolidationPolicyWhenEmptyOrUnderutilized ConsolidationPolicy = "WhenEmptyOrUnderutilized"
	ConsolidationPolicyBalanced                 ConsolidationPolicy = "Balanced"
)

// DisruptionReason names why a node is disrupted; budgets may be scoped to reasons.
type DisruptionReason string

// The disruption reasons budgets may name.
const (
	DisruptionReasonUnderutilized DisruptionReason = "Underutilized"
	DisruptionReasonEmpty         DisruptionReason = "Empty"
	DisruptionReasonDrifted       DisruptionReason = "Drifted"
)

// Disruption configures how the pool's nodes may be disrupted.
type Disruption struct {
	ConsolidateAfter    NillableDuration    `json:"consolidateAfter,omitzero"`
	ConsolidationPolicy ConsolidationPolicy `json:"consolidationPolicy,omitempty"`
	Budgets             []Budget            `json:"budgets,omitempty"`
}

// Budget limits how many of the pool's nodes may be disrupting at once, optionally only for some reasons
// and only inside a cron schedule window.
type Budget struct {
	Reasons  []DisruptionReason `json:"reasons,omitempty"`
	Nodes    string             `json:"nodes"`
	Schedule *string            `json:"schedule,omitempty"`
	Duration *metav1.Duration   `json:"duration,omitempty"`
}

// NodePoolStatus is the observed state of a NodePool.
type NodePoolStatus struct {
	Resources  corev1.ResourceList `json:"resources,omitempty"`
	Conditions []metav1.Condition  `json:"conditions,omitempty"`
}
