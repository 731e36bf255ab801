package consolidation

import (
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// Eviction cost scale, as Karpenter's pkg/utils/disruption: the pod-deletion-cost annotation spans
// about ±2^31, so /2^27 moves a pod by at most ±16; priorities span about −2^31…10^9, so /2^25
// lets a very low priority push the cost to the floor while ordinary priorities barely matter.
const (
	deletionCostScale = 1 << 27
	priorityScale     = 1 << 25
	minEvictionCost   = -10.0
	maxEvictionCost   = 10.0
	// perNodeDisruptionCost is what removing a node costs before any pod moves.
	perNodeDisruptionCost = 1.0
)

// EvictionCost is how much evicting pod hurts, as Karpenter weighs it:
// 1 + pod-deletion-cost/2^27 + priority/2^25, clamped to [-10, 10]. A deletion-cost annotation that
// is not a finite number is ignored (Karpenter logs and ignores it too). A nil pod costs 0.
func EvictionCost(pod *corev1.Pod) float64 {
	if pod == nil {
		return 0
	}
	cost := 1.0
	if s, ok := pod.Annotations[corev1.PodDeletionCost]; ok {
		if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			cost += v / deletionCostScale
		}
	}
	if pod.Spec.Priority != nil {
		cost += float64(*pod.Spec.Priority) / priorityScale
	}
	return min(max(cost, minEvictionCost), maxEvictionCost)
}

// DisruptionCost is what removing a node hosting pods costs: 1 + Σ max(0, EvictionCost). Pods with
// a negative cost count as nothing rather than making the node cheaper to disrupt than an empty one,
// so "empty" (cost ≤ 1) means no pod that anyone minds moving.
func DisruptionCost(pods []*corev1.Pod) float64 {
	cost := perNodeDisruptionCost
	for _, p := range pods {
		cost += max(0, EvictionCost(p))
	}
	return cost
}
