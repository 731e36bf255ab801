package schedreplay

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/provisioner"
)

func TestNominationsFor(t *testing.T) {
	// The large-pod case of replay_test: two 4-cpu nodes; spreading puts m1 on a and m2 on b,
	// leaving 2.5 cpu on each for large (3 cpu). A packer puts m1 and m2 on b, large on a.
	m1, m2, large := pod("m1", "1500m", "1Gi"), pod("m2", "1500m", "1Gi"), pod("large", "3", "1Gi")
	stranding := []*corev1.Pod{m1, m2, large}
	twoNodes := []Node{node("a", "4", "16Gi", ""), node("b", "4", "16Gi", "")}
	packed := map[string]string{"default/m1": "b", "default/m2": "b", "default/large": "a"}
	huge := pod("huge", "8", "1Gi")

	// Three rounds, on two even 4-cpu nodes (LeastAllocated picks the node whose bound pods
	// leave the most cpu; the first on a tie). The plan: big (3) and s (1) on b, x (2.5) and y
	// (1.5) on a.
	//  1. big -> a (tie), s -> b (emptier), x -> b (1 cpu left on a), y fits neither (1 and 0.5
	//     cpu left): y is nominated to a.
	//  2. y reserves 1.5 cpu on a. big -> b (0 + 1.5 + 3 > 4 on a), s -> a (it fits beside the
	//     reservation, and the scores see a empty), x fits neither (a: 1 + 1.5 + 2.5 > 4, b: 3 +
	//     2.5 > 4), y -> a (its node, 1 + 1.5 <= 4); x stays an orphan on the retry: it is nominated
	//     to a.
	//  3. y and x reserve 1.5 + 2.5 = 4 cpu on a: big -> b, s -> b (a is full), x -> a (y's 1.5
	//     counted: 4 <= 4), y -> a. No orphan.
	big, s, x, y := even("big", 3000), even("s", 1000), even("x", 2500), even("y", 1500)
	threeRounds := []*corev1.Pod{big, s, x, y}
	threePlan := map[string]string{"default/big": "b", "default/s": "b", "default/x": "a", "default/y": "a"}

	// Four rounds, two even 4-cpu nodes; the names say the planned node (a: 2 + 0.5 + 1.5 cpu, b:
	// 1 + 3 cpu).
	//  1. a1 -> a (tie), a2 -> b (emptier), b1 -> b (LeastAllocated 62 against 25), b2 (3) fits
	//     neither (2 and 2.5 cpu left), a3 -> b (25 against 12); b2 still fits neither on the
	//     retry: nominated to b.
	//  2. b2 reserves 3 on b: a1 -> a (no room beside it on b), a2 -> b (fits beside it; 87
	//     against 37), b1 -> a (b: 0.5 + 3 + 1 > 4), b2 -> b, a3 fits neither (a: 3 + 1.5, b: 3.5
	//     + 1.5): nominated to a.
	//  3. a3 reserves 1.5 on a: a1 -> a (2 + 1.5 <= 4), a2 -> b (87 against 37), b1 fits neither
	//     (a: 2 + 1.5 + 1, b: 0.5 + 3 + 1 > 4), b2 -> b, a3 -> a; b1 is nominated to b.
	//  4. b: 3 + 1 reserved, a: 1.5. a1 -> a, a2 -> a (b is full), b1 -> b (b2's 3 counted),
	//     b2 -> b, a3 -> a. No orphan.
	a1, a2, a3, b1, b2 := even("a1", 2000), even("a2", 500), even("a3", 1500), even("b1", 1000), even("b2", 3000)
	fourRounds := []*corev1.Pod{a1, a2, b1, b2, a3}
	fourPlan := map[string]string{"default/a1": "a", "default/a2": "a", "default/a3": "a", "default/b1": "b", "default/b2": "b"}
	evenNodes := []Node{evenNode("a", 4000), evenNode("b", 4000)}

	cases := []struct {
		name      string
		nodes     []Node
		queue     []*corev1.Pod
		planned   map[string]string
		maxRounds int
		pods      map[string]string // Nominations.Pods
		placed    map[string]string
		orphans   []string
		rounds    int
	}{
		{
			// replay_test's first case: p1 -> a, p2 -> b (emptier). Nothing to nominate.
			name:      "no orphan: one replay, no nomination",
			nodes:     twoNodes,
			queue:     []*corev1.Pod{pod("p1", "1", "1Gi"), pod("p2", "1", "1Gi")},
			planned:   map[string]string{"default/p1": "a", "default/p2": "a"},
			maxRounds: 5,
			pods:      map[string]string{},
			placed:    map[string]string{"default/p1": "a", "default/p2": "b"},
			rounds:    1,
		},
		{
			// large's own nomination (TestReplayNominated's first case) leaves no orphan; it is
			// the input's, not a chosen one.
			name:      "the input's nominations are kept and not reported",
			nodes:     []Node{nominated(node("a", "4", "16Gi", ""), large), node("b", "4", "16Gi", "")},
			queue:     stranding,
			planned:   packed,
			maxRounds: 5,
			pods:      map[string]string{},
			placed:    map[string]string{"default/m1": "b", "default/m2": "b", "default/large": "a"},
			rounds:    1,
		},
		{
			// Round 1 orphans large; nominated to a, it keeps a's room: m1 and m2 go to b.
			name:      "the stranded large pod is nominated to its planned node",
			nodes:     twoNodes,
			queue:     stranding,
			planned:   packed,
			maxRounds: 5,
			pods:      map[string]string{"default/large": "a"},
			placed:    map[string]string{"default/m1": "b", "default/m2": "b", "default/large": "a"},
			rounds:    2,
		},
		{
			name:      "an orphan without a planned node is not nominated",
			nodes:     twoNodes,
			queue:     stranding,
			planned:   map[string]string{"default/m1": "b", "default/m2": "b"},
			maxRounds: 5,
			pods:      map[string]string{},
			placed:    map[string]string{"default/m1": "a", "default/m2": "b"},
			orphans:   []string{"large"},
			rounds:    1,
		},
		{
			name:      "an orphan planned to an unknown node is not nominated",
			nodes:     twoNodes,
			queue:     stranding,
			planned:   map[string]string{"default/m1": "b", "default/m2": "b", "default/large": "zzz"},
			maxRounds: 5,
			pods:      map[string]string{},
			placed:    map[string]string{"default/m1": "a", "default/m2": "b"},
			orphans:   []string{"large"},
			rounds:    1,
		},
		{
			// huge (8 cpu) is nominated to a in the input: m1 does not fit beside it on a and goes
			// to b; huge fits nowhere. Being nominated already, it is not nominated to b.
			name:      "an orphan nominated in the input is not nominated again",
			nodes:     []Node{nominated(node("a", "4", "16Gi", ""), huge), node("b", "4", "16Gi", "")},
			queue:     []*corev1.Pod{m1, huge},
			planned:   map[string]string{"default/m1": "a", "default/huge": "b"},
			maxRounds: 5,
			pods:      map[string]string{},
			placed:    map[string]string{"default/m1": "b"},
			orphans:   []string{"huge"},
			rounds:    1,
		},
		{
			// A bad plan: huge (8 cpu) to a (4 cpu). Round 2: its reservation sends m1 and m2 to b,
			// huge fits nowhere, and as it is nominated already the loop stops.
			name:      "an orphan nominated already by the loop is not nominated again",
			nodes:     twoNodes,
			queue:     []*corev1.Pod{m1, m2, huge},
			planned:   map[string]string{"default/m1": "a", "default/m2": "b", "default/huge": "a"},
			maxRounds: 5,
			pods:      map[string]string{"default/huge": "a"},
			placed:    map[string]string{"default/m1": "b", "default/m2": "b"},
			orphans:   []string{"huge"},
			rounds:    2,
		},
		{
			name:      "maxRounds 1: one replay, the orphan left, no nomination",
			nodes:     twoNodes,
			queue:     stranding,
			planned:   packed,
			maxRounds: 1,
			pods:      map[string]string{},
			placed:    map[string]string{"default/m1": "a", "default/m2": "b"},
			orphans:   []string{"large"},
			rounds:    1,
		},
		{
			// The Result needs one replay whatever the bound.
			name:      "maxRounds 0 still replays once",
			nodes:     twoNodes,
			queue:     stranding,
			planned:   packed,
			maxRounds: 0,
			pods:      map[string]string{},
			placed:    map[string]string{"default/m1": "a", "default/m2": "b"},
			orphans:   []string{"large"},
			rounds:    1,
		},
		{
			name:      "a nomination strands another pod: two rounds of nominations",
			nodes:     evenNodes,
			queue:     threeRounds,
			planned:   threePlan,
			maxRounds: 5,
			pods:      map[string]string{"default/y": "a", "default/x": "a"},
			placed:    map[string]string{"default/big": "b", "default/s": "b", "default/x": "a", "default/y": "a"},
			rounds:    3,
		},
		{
			// Stopped after round 2 (see above): y nominated, x stranded by it.
			name:      "maxRounds 2 stops with the pod the first nomination stranded",
			nodes:     evenNodes,
			queue:     threeRounds,
			planned:   threePlan,
			maxRounds: 2,
			pods:      map[string]string{"default/y": "a"},
			placed:    map[string]string{"default/big": "b", "default/s": "a", "default/y": "a"},
			orphans:   []string{"x"},
			rounds:    2,
		},
		{
			name:      "three rounds of nominations",
			nodes:     evenNodes,
			queue:     fourRounds,
			planned:   fourPlan,
			maxRounds: 10,
			pods:      map[string]string{"default/b2": "b", "default/a3": "a", "default/b1": "b"},
			placed: map[string]string{"default/a1": "a", "default/a2": "a", "default/a3": "a",
				"default/b1": "b", "default/b2": "b"},
			rounds: 4,
		},
		{
			// Stopped after round 3 (see above).
			name:      "maxRounds 3 stops before the third nomination",
			nodes:     evenNodes,
			queue:     fourRounds,
			planned:   fourPlan,
			maxRounds: 3,
			pods:      map[string]string{"default/b2": "b", "default/a3": "a"},
			placed:    map[string]string{"default/a1": "a", "default/a2": "b", "default/a3": "a", "default/b2": "b"},
			orphans:   []string{"b1"},
			rounds:    3,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NominationsFor(tc.nodes, tc.queue, tc.planned, NominationOptions{MaxRounds: tc.maxRounds})
			require.NoError(t, err)
			assert.Equal(t, tc.pods, got.Pods)
			require.NotNil(t, got.Result)
			assert.Equal(t, tc.placed, got.Result.Placed)
			assert.Equal(t, tc.orphans, names(got.Result.Orphans))
			assert.Equal(t, tc.rounds, got.Rounds)
		})
	}
}

// TestNominationsForLeavesInputAlone: the nominations go into copies; the caller's nodes (their
// Nominated slices, spare capacity included), queue and plan are unchanged.
func TestNominationsForLeavesInputAlone(t *testing.T) {
	big, s, x, y := even("big", 3000), even("s", 1000), even("x", 2500), even("y", 1500)
	given := even("given", 100)
	// a holds given's nomination in a slice with room to grow: an append in place would write
	// the chosen pods (y, then x) there.
	onA := make([]*corev1.Pod, 1, 4)
	onA[0] = given
	nodes := []Node{nominated(evenNode("a", 4100), onA...), evenNode("b", 4000)}
	queue := []*corev1.Pod{big, s, x, y, given}
	planned := map[string]string{"default/big": "b", "default/s": "b", "default/x": "a", "default/y": "a"}
	nodesBefore, queueBefore := cloneNodes(nodes), clonePods(queue)
	plannedBefore := map[string]string{}
	for k, v := range planned {
		plannedBefore[k] = v
	}

	// As TestNominationsFor's three-round case, with given (0.1 cpu) nominated to a, which has
	// 0.1 cpu more: y and x are nominated to a, and given fits beside them.
	got, err := NominationsFor(nodes, queue, planned, NominationOptions{MaxRounds: 5})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"default/y": "a", "default/x": "a"}, got.Pods)
	assert.Equal(t, map[string]string{"default/big": "b", "default/s": "b", "default/x": "a", "default/y": "a",
		"default/given": "a"}, got.Result.Placed)
	assert.Equal(t, 3, got.Rounds)

	assert.Equal(t, nodesBefore, nodes)
	require.Len(t, nodes[0].Nominated, 1)
	assert.Same(t, given, nodes[0].Nominated[0])
	assert.Equal(t, []*corev1.Pod{nil, nil, nil}, onA[1:4], "spare capacity written")
	assert.Nil(t, nodes[1].Nominated)
	assert.Equal(t, queueBefore, queue)
	assert.Equal(t, plannedBefore, planned)
}

// firstFit is a simple packer's plan: each pod, in queue order, on the first node where every
// resource it requests still fits the allocatable; pods that fit nowhere are left out.
func firstFit(nodes []Node, queue []*corev1.Pod) map[string]string {
	used := make([]map[corev1.ResourceName]int64, len(nodes))
	for i := range used {
		used[i] = map[corev1.ResourceName]int64{}
	}
	plan := map[string]string{}
	for _, p := range queue {
		req := provisioner.PodRequests(p)
		for i, n := range nodes {
			fits := true
			for name, v := range req {
				q, ok := n.Allocatable[name]
				if !ok || used[i][name]+v > provisioner.QuantityValue(name, q) {
					fits = false
					break
				}
			}
			if !fits {
				continue
			}
			for name, v := range req {
				used[i][name] += v
			}
			plan[podKey(p)] = n.Name
			break
		}
	}
	return plan
}

// TestNominationsForInvariants checks, on TestReplayInvariants' random clusters with a first-fit
// plan, what NominationsFor guarantees:
//   - the result is a placement: every pod placed or orphaned once, no node over its allocatable,
//     the anti-affinities and zone spreads kept;
//   - it is deterministic, took 1 to maxRounds replays, and is the replay with the chosen pods
//     nominated;
//   - each chosen pod is an orphan it planned, nominated to its planned node;
//   - a chosen pod without affinities or spreads lands on its nominated node (the plan fits
//     there by resources, and the reservation keeps the room: every other pod has the same
//     priority). One with them may not: the first-fit plan ignores them (two anti-affine
//     replicas may share a planned node), and the replay does not reserve a nominated pod's
//     place in a zone spread, so the nominated node may fail the filters at its turn;
//   - when it stops before maxRounds with orphans left, none of them can be nominated.
func TestNominationsForInvariants(t *testing.T) {
	const maxRounds = 5
	chosen := 0
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 7))
		nodes, queue := randomCluster(r, 1+r.IntN(30), r.IntN(400))
		planned := firstFit(nodes, queue)
		got, err := NominationsFor(nodes, queue, planned, NominationOptions{MaxRounds: maxRounds})
		require.NoError(t, err)
		again, err := NominationsFor(nodes, queue, planned, NominationOptions{MaxRounds: maxRounds})
		require.NoError(t, err)
		require.Equal(t, got, again, "seed %d: not deterministic", seed)

		res := got.Result
		require.Equal(t, len(queue), len(res.Placed)+len(res.Orphans), "seed %d", seed)
		checkRoom(t, nodes, queue, res)
		checkAntiAffinity(t, queue, res)
		checkZoneSkew(t, nodes, queue, res)
		assert.GreaterOrEqual(t, got.Rounds, 1, "seed %d", seed)
		assert.LessOrEqual(t, got.Rounds, maxRounds, "seed %d", seed)
		if got.Rounds == 1 {
			assert.Empty(t, got.Pods, "seed %d: nominations without a second replay", seed)
		}

		withNoms := make([]Node, len(nodes))
		copy(withNoms, nodes)
		index := map[string]int{}
		for i, n := range nodes {
			index[n.Name] = i
		}
		inQueue := 0
		for _, p := range queue {
			key := podKey(p)
			target, ok := got.Pods[key]
			if !ok {
				continue
			}
			inQueue++
			assert.Equal(t, planned[key], target, "seed %d: %s not nominated to its planned node", seed, key)
			i := index[target]
			withNoms[i].Nominated = append(withNoms[i].Nominated, p)
			if p.Spec.Affinity == nil && len(p.Spec.TopologySpreadConstraints) == 0 {
				assert.Equal(t, target, res.Placed[key], "seed %d: %s not on its nominated node", seed, key)
			}
		}
		assert.Len(t, got.Pods, inQueue, "seed %d: a chosen pod not in the queue", seed)
		chosen += inQueue
		replayed, err := Replay(withNoms, queue)
		require.NoError(t, err)
		assert.Equal(t, replayed, res, "seed %d: Result is not the replay with the nominations", seed)

		if got.Rounds < maxRounds {
			for _, p := range res.Orphans {
				target, ok := planned[podKey(p)]
				_, done := got.Pods[podKey(p)]
				assert.True(t, !ok || done, "seed %d: orphan %s could still go to %s", seed, p.Name, target)
			}
		}
	}
	assert.Positive(t, chosen, "no seed needed a nomination")
}
