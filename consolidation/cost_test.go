package consolidation

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

func TestEvictionCost(t *testing.T) {
	prio := func(p int32) func(*corev1.Pod) { return func(pod *corev1.Pod) { pod.Spec.Priority = &p } }
	cost := func(v string) func(*corev1.Pod) { return annotated(corev1.PodDeletionCost, v) }
	tests := []struct {
		name string
		pod  *corev1.Pod
		want float64
	}{
		{"plain pod costs 1", rulePod("a", "a"), 1},
		{"nil pod costs nothing", nil, 0},
		{"deletion cost 2^27 adds 1", rulePod("a", "a", cost("134217728")), 2},
		{"deletion cost -2^27 takes 1", rulePod("a", "a", cost("-134217728")), 0},
		{"priority 2^25 adds 1", rulePod("a", "a", prio(1<<25)), 2},
		{"both add up", rulePod("a", "a", cost("134217728"), prio(1<<25)), 3},
		{"max deletion cost clamps to 10", rulePod("a", "a", cost("2147483647")), 10},
		{"min priority clamps to -10", rulePod("a", "a", prio(-2147483648)), -10},
		{"unparsable deletion cost is ignored", rulePod("a", "a", cost("lots")), 1},
		{"NaN deletion cost is ignored", rulePod("a", "a", cost("NaN")), 1},
		{"infinite deletion cost is ignored", rulePod("a", "a", cost("+Inf")), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, EvictionCost(tt.pod), 1e-9)
		})
	}
}

func TestDisruptionCost(t *testing.T) {
	negative := rulePod("n", "n", annotated(corev1.PodDeletionCost, "-2147483647"))
	high := rulePod("h", "h", annotated(corev1.PodDeletionCost, "2147483647"))
	tests := []struct {
		name string
		pods []*corev1.Pod
		want float64
	}{
		{"no pods is the node's base cost", nil, 1},
		{"two plain pods", []*corev1.Pod{rulePod("a", "a"), rulePod("b", "b")}, 3},
		{"negative pods count as nothing", []*corev1.Pod{negative, negative}, 1},
		{"negative does not cancel positive", []*corev1.Pod{negative, rulePod("a", "a")}, 2},
		{"clamped pod", []*corev1.Pod{high}, 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, DisruptionCost(tt.pods), 1e-9)
		})
	}
}

// ExampleEvictionCost shows the weight of a pod's deletion cost and priority.
func ExampleEvictionCost() {
	critical := int32(1 << 25)
	pod := &corev1.Pod{}
	pod.Annotations = map[string]string{corev1.PodDeletionCost: "268435456"} // 2^28
	pod.Spec.Priority = &critical
	fmt.Println(EvictionCost(&corev1.Pod{}), EvictionCost(pod))
	// Output: 1 4
}

// ExampleDisruptionCost shows that an empty node still costs 1 and negative pods count as nothing.
func ExampleDisruptionCost() {
	cheap := &corev1.Pod{}
	cheap.Annotations = map[string]string{corev1.PodDeletionCost: "-1000000000"}
	fmt.Println(DisruptionCost(nil), DisruptionCost([]*corev1.Pod{{}, {}, cheap}))
	// Output: 1 3
}
