package schedreplay

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

// TestReplayNominatedSpread: kube-scheduler v1.37 counts the pods nominated to the node it
// filters in the incoming pod's DoNotSchedule spreads (addGENominatedPods in
// pkg/scheduler/framework/runtime/framework.go runs PodTopologySpread's AddPod for each one of
// equal or higher priority, other than the pod itself; AddPod, in
// pkg/scheduler/framework/plugins/podtopologyspread/filtering.go, counts it when the constraint
// selects it and it shares the pod's namespace, and updates the critical paths, so the minimum
// rises with the count of the domain that held it), and the node must pass with and without them
// (RunFilterPluginsWithNominatedPods).
func TestReplayNominatedSpread(t *testing.T) {
	spreadX := []podOpt{app("x"), zoneSpread("x", 1, corev1.DoNotSchedule)}
	x0, x1 := even("x0", 1000, spreadX...), even("x1", 1000, spreadX...)
	lowX1 := even("x1", 1000, append(spreadX, priorityOf(-1))...)
	otherX1 := even("x1", 1000, append(spreadX, func(p *corev1.Pod) { p.Namespace = "other" })...)
	zones := func(a Node) []Node {
		return []Node{a, node("b", "8", "8000Mi", "z2"), node("c", "2", "2000Mi", "z3")}
	}
	full := func(name, zone string) Node {
		return withPods(node(name, "1", "1000Mi", zone), even(name+"-x", 1000, app("x")))
	}
	cases := []replayCase{
		{
			// The zones level at 0: x0's attempt on a counts x1 there, 0 + 1 + 1 - 0 = 2 > 1, so a
			// is out for x0, which goes by scores to b (LeastAllocated 87 against c's 50). x1 then
			// has a to itself: 0 + 1 - 0 = 1. Without x1 counted, x0 would take a and x1 (then
			// 1 + 1 - 0 on a) would go to b.
			name:   "two replicas nominated to one node refuse each other there",
			nodes:  zones(nominated(node("a", "4", "4000Mi", "z1"), x0, x1)),
			queue:  []*corev1.Pod{x0, x1},
			placed: map[string]string{"default/x0": "b", "default/x1": "a"},
		},
		{
			// x1's priority (-1) is below x0's: not counted, x0 takes a; then x1, 1 + 1 - 0 on a,
			// goes to b.
			name:   "a lower-priority nominated replica is not counted",
			nodes:  zones(nominated(node("a", "4", "4000Mi", "z1"), x0, lowX1)),
			queue:  []*corev1.Pod{x0, lowX1},
			placed: map[string]string{"default/x0": "a", "default/x1": "b"},
		},
		{
			// The constraint counts pods of the incoming pod's namespace only.
			name:   "a nominated pod of another namespace is not counted",
			nodes:  zones(nominated(node("a", "4", "4000Mi", "z1"), x0, otherX1)),
			queue:  []*corev1.Pod{x0, otherX1},
			placed: map[string]string{"default/x0": "a", "other/x1": "a"},
		},
		{
			// z2 and z3 hold one x each, z1 none: x0's attempt on a counts x1, which raises z1 to
			// 1 and the minimum with it (z1 held it alone): 0 + 1 + 1 - 1 = 1, so x0 takes a. w
			// then finds a full (x0 placed, x1's 1000m reserved), as b and c are, and is left
			// over; x1 takes a (1 + 1 - 1). Were the minimum kept at 0, x0 would fit nowhere,
			// lose its nomination, w would take its room and x0 would be the orphan.
			name: "the minimum rises with the domain that held it",
			nodes: []Node{nominated(node("a", "2", "2000Mi", "z1"), x0, x1), full("b", "z2"),
				full("c", "z3")},
			queue:   []*corev1.Pod{x0, even("w", 1000), x1},
			placed:  map[string]string{"default/x0": "a", "default/x1": "a"},
			orphans: []string{"w"},
		},
	}
	runReplayCases(t, cases)
}

// TestMinimumRaised: the critical paths' arithmetic on its own, including ties.
func TestMinimumRaised(t *testing.T) {
	cases := []struct {
		name         string
		counts       []int // per domain, in the order observed
		d, n, extra  int
		want, before int
	}{
		{name: "another domain's count rises: unchanged", counts: []int{0, 1, 1}, d: 1, n: 1, extra: 2, want: 0, before: 0},
		{name: "the lone least rises below the second", counts: []int{0, 3, 3}, d: 0, n: 0, extra: 2, want: 2, before: 0},
		{name: "the lone least rises past the second", counts: []int{0, 1, 3}, d: 0, n: 0, extra: 2, want: 1, before: 0},
		{name: "a tie for the least: the other keeps it", counts: []int{2, 2, 5}, d: 0, n: 2, extra: 1, want: 2, before: 2},
		{name: "a single domain", counts: []int{4}, d: 0, n: 4, extra: 1, want: 5, before: 4},
		{name: "the least observed last", counts: []int{3, 2, 1}, d: 2, n: 1, extra: 3, want: 2, before: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := minimum{least: -1, domain: -1, second: -1}
			for d, n := range tc.counts {
				m.observe(d, n)
				m.observe(d, n) // a domain seen again, from its next node
			}
			assert.Equal(t, tc.before, m.least)
			assert.Equal(t, tc.want, m.raised(tc.d, tc.n, tc.extra))
		})
	}
}
