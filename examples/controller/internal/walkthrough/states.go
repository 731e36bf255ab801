package walkthrough

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

// claimState describes a NodeClaim by the furthest lifecycle condition it reached.
func claimState(nc *api.NodeClaim) string {
	prefix := ""
	if nc.DeletionTimestamp != nil {
		prefix = "deleting; "
	}
	switch {
	case hasCondition(nc, api.ConditionInitialized):
		return prefix + "initialized"
	case hasCondition(nc, api.ConditionRegistered):
		return prefix + "registered as node " + nc.Status.NodeName
	case hasCondition(nc, api.ConditionLaunched):
		return fmt.Sprintf("%slaunched %s in %s (%s)", prefix, nc.Labels[api.LabelInstanceType], nc.Labels[api.LabelZone],
			nc.Labels[api.LabelCapacityType])
	}
	options := 0
	for _, r := range nc.Spec.Requirements {
		if r.Key == api.LabelInstanceType {
			options = len(r.Values)
		}
	}
	return fmt.Sprintf("%screated in NodePool %s for %s CPU of pods, %d instance-type options", prefix,
		nc.Labels[api.LabelNodePool], nc.Spec.Resources.Requests.Cpu(), options)
}

func hasCondition(nc *api.NodeClaim, kind string) bool {
	return slices.ContainsFunc(nc.Status.Conditions, func(c metav1.Condition) bool { return c.Type == kind && c.Status == "True" })
}

// nodeState describes a node by what it is and what keeps pods off it.
func nodeState(node *corev1.Node) string {
	switch {
	case node.DeletionTimestamp != nil:
		return "deleting: cordoned and drained through the karpenter.sh/termination finalizer"
	case node.Spec.Unschedulable:
		return "cordoned"
	}
	state := fmt.Sprintf("%s, %s CPU allocatable", node.Labels[api.LabelInstanceType], node.Status.Allocatable.Cpu())
	var taints []string
	for _, t := range node.Spec.Taints {
		taints = append(taints, t.Key)
	}
	if len(taints) > 0 {
		return state + ", tainted " + strings.Join(taints, ",")
	}
	return state + ", ready for pods"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
