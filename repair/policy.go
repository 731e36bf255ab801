package repair

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Policy says that a node whose condition ConditionType has had ConditionStatus for longer than
// Toleration is unhealthy and should be replaced.
type Policy struct {
	ConditionType   corev1.NodeConditionType
	ConditionStatus corev1.ConditionStatus
	Toleration      time.Duration
}

// ConditionPreemptionScheduled is the node condition a node agent sets on an Azure spot VM that
// received its eviction notice (about 30 s ahead).
const ConditionPreemptionScheduled corev1.NodeConditionType = "PreemptionScheduled"

// ConditionNodeHealthy is AKS's node-problem condition.
const ConditionNodeHealthy corev1.NodeConditionType = "kubernetes.azure.com/NodeHealthy"

// AzurePolicies are the Azure provider's repair policies: Ready False or Unknown for 10 minutes,
// NodeHealthy False and (spot) PreemptionScheduled True at once
// (upstream: pkg/cloudprovider/cloudprovider.go RepairPolicies).
func AzurePolicies() []Policy {
	return []Policy{
		{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, Toleration: 10 * time.Minute},
		{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionUnknown, Toleration: 10 * time.Minute},
		{ConditionType: ConditionNodeHealthy, ConditionStatus: corev1.ConditionFalse},
		{ConditionType: ConditionPreemptionScheduled, ConditionStatus: corev1.ConditionTrue},
	}
}

// WithToleration returns the policies with every non-zero toleration replaced by d: a shorter
// window for tests and demonstrations, the same policies otherwise.
func WithToleration(policies []Policy, d time.Duration) []Policy {
	out := make([]Policy, len(policies))
	for i, p := range policies {
		if p.Toleration > 0 {
			p.Toleration = d
		}
		out[i] = p
	}
	return out
}

// match returns the node's first condition matching a policy, with that policy, if any.
func match(node *corev1.Node, policies []Policy) (corev1.NodeCondition, Policy, bool) {
	for _, p := range policies {
		for _, c := range node.Status.Conditions {
			if c.Type == p.ConditionType && c.Status == p.ConditionStatus {
				return c, p, true
			}
		}
	}
	return corev1.NodeCondition{}, Policy{}, false
}
