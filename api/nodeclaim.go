package api

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeClaim is karpenter.sh/v1 NodeClaim: a request for one node, and what became of it.
type NodeClaim struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              NodeClaimSpec   `json:"spec"`
	Status            NodeClaimStatus `json:"status,omitempty"`
}

// NodeClaimSpec is the immutable request.
type NodeClaimSpec struct {
	Taints                 []corev1.Taint                         `json:"taints,omitempty"`
	StartupTaints          []corev1.Taint                         `json:"startupTaints,omitempty"`
	Requirements           []NodeSelectorRequirementWithMinValues `json:"requirements"`
	Resources              ResourceRequirements                   `json:"resources,omitempty"`
	NodeClassRef           *NodeClassReference                    `json:"nodeClassRef"`
	TerminationGracePeriod *metav1.Duration                       `json:"terminationGracePeriod,omitempty"`
	ExpireAfter            NillableDuration                       `json:"expireAfter,omitzero"`
}

// ResourceRequirements holds the summed requests of the pods the claim was made for.
type ResourceRequirements struct {
	Requests corev1.ResourceList `json:"requests,omitempty"`
}

// NodeClaimStatus is what the cloud provider and the node reported.
type NodeClaimStatus struct {
	NodeName         string              `json:"nodeName,omitempty"`
	ProviderID       string              `json:"providerID,omitempty"`
	ImageID          string              `json:"imageID,omitempty"`
	Capacity         corev1.ResourceList `json:"capacity,omitempty"`
	Allocatable      corev1.ResourceList `json:"allocatable,omitempty"`
	Conditions       []metav1.Condition  `json:"conditions,omitempty"`
	LastPodEventTime metav1.Time         `json:"lastPodEventTime,omitempty"`
}

// NodeClaim condition types.
const (
	ConditionLaunched       = "Launched"
	ConditionRegistered     = "Registered"
	ConditionInitialized    = "Initialized"
	ConditionReady          = "Ready"
	ConditionDrifted        = "Drifted"
	ConditionConsolidatable = "Consolidatable"
)
