package schedreplay

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/napkit/napkit/api"
)

// even is a pod of milli millicores and as many MiB, evenNode a node of milli millicores and as
// many MiB: every such pod takes the same share of a node's cpu and memory, so
// NodeResourcesBalancedAllocation scores 50 + (50 + 100 - 100) / 2 = 75 on every node and
// LeastAllocated alone, (allocatable - bound requests - the pod) * 100 / allocatable of the cpu,
// picks the node (the first one on a tie).
func even(name string, milli int, opts ...podOpt) *corev1.Pod {
	return pod(name, fmt.Sprintf("%dm", milli), fmt.Sprintf("%dMi", milli), opts...)
}

func evenNode(name string, milli int) Node {
	return node(name, fmt.Sprintf("%dm", milli), fmt.Sprintf("%dMi", milli), "")
}

// nominated is n with pods nominated to it (status.nominatedNodeName).
func nominated(n Node, pods ...*corev1.Pod) Node {
	n.Nominated = pods
	return n
}

const gpu corev1.ResourceName = "nvidia.com/gpu"

func priorityOf(p int32) podOpt { return func(pod *corev1.Pod) { pod.Spec.Priority = &p } }

func TestReplayNominated(t *testing.T) {
	m1, m2, large := pod("m1", "1500m", "1Gi"), pod("m2", "1500m", "1Gi"), pod("large", "3", "1Gi")
	p1, p2 := pod("p1", "1", "1Gi"), pod("p2", "1", "1Gi")
	tainted1 := even("p", 1000)
	tooBig := even("p", 3000)
	huge := even("huge", 8000)
	beside := even("big", 2000)
	x3, y3 := even("x", 3000), even("y", 3000)
	x2, y2 := even("x", 2000), even("y", 2000)
	hi, lo := even("hi", 2000, priorityOf(10)), even("lo", 3000)
	repelled := even("p", 1000, app("x"))
	withGPU := func(p *corev1.Pod) {
		p.Spec.Containers[0].Resources.Requests[gpu] = resource.MustParse("1")
	}
	gpuNode := node("g", "8", "32Gi", "")
	gpuNode.Allocatable[gpu] = resource.MustParse("1")
	t1 := pod("t1", "1", "1Gi", withGPU)
	xOnA, guardOnA := even("n", 1000, app("x")), even("n", 1000, antiAffine("x", corev1.LabelHostname))
	lowGuard := even("n", 1000, antiAffine("x", corev1.LabelHostname), priorityOf(-1))
	cases := []replayCase{
		{
			// replay_test's "spreading strands a large pod", with large nominated to a: a keeps
			// 4 - 3 = 1 cpu for the others, less than 1500m, so m1 and m2 both go to b (3 of its 4
			// cpu), and large finds a empty.
			name:   "a nomination keeps room for a large pod",
			nodes:  []Node{nominated(node("a", "4", "16Gi", ""), large), node("b", "4", "16Gi", "")},
			queue:  []*corev1.Pod{m1, m2, large},
			placed: map[string]string{"default/m1": "b", "default/m2": "b", "default/large": "a"},
		},
		{
			// Without the nomination p1 goes to big (replay_test). With it p1 takes small though
			// big scores higher. p2 fits on small beside p1 (2 of 2 cpu), but big wins: LeastAllocated
			// 97 against 25, balanced 74 against 69.
			name:   "the nominated node is taken even when another scores higher",
			nodes:  []Node{nominated(node("small", "2", "4Gi", ""), p1), node("big", "32", "128Gi", "")},
			queue:  []*corev1.Pod{p1, p2},
			placed: map[string]string{"default/p1": "small", "default/p2": "big"},
		},
		{
			// p does not tolerate gpu's taint: it goes by scores to c (LeastAllocated 87 against
			// b's 75). Its nomination is dropped, so q (all of gpu's 8 cpu) fits there; with p's
			// 1000m still reserved it would fit nowhere (b is 4 cpu, c has 7 left).
			name: "a nominated node with an untolerated taint: placed by scores, room freed",
			nodes: []Node{nominated(tainted(evenNode("gpu", 8000), "gpu"), tainted1), evenNode("b", 4000),
				evenNode("c", 8000)},
			queue:  []*corev1.Pod{tainted1, even("q", 8000, tolerate("gpu"))},
			placed: map[string]string{"default/p": "c", "default/q": "gpu"},
		},
		{
			// p (3 cpu) does not fit its nominated a (2 cpu): it goes to b (3 of 4 cpu). q (2 cpu)
			// then fits a only: b has 1 cpu left, and a would not take it with p's 3 cpu reserved.
			name:   "a nominated node too small for the pod: placed elsewhere, room freed",
			nodes:  []Node{nominated(evenNode("a", 2000), tooBig), evenNode("b", 4000)},
			queue:  []*corev1.Pod{tooBig, even("q", 2000)},
			placed: map[string]string{"default/p": "b", "default/q": "a"},
		},
		{
			// First pass: p1 (3 cpu) does not fit beside huge's 8 cpu reserved on a; huge fits no
			// node, which drops its nomination; p2 then fits a. Retry: p1 fits a beside p2 (4 of 4
			// cpu); huge is orphaned. Were the nomination kept, p1 and p2 would be orphans too.
			name:    "a nominated pod that fits nowhere loses its nomination in the first pass",
			nodes:   []Node{nominated(evenNode("a", 4000), huge)},
			queue:   []*corev1.Pod{even("p1", 3000), huge, even("p2", 1000)},
			placed:  map[string]string{"default/p1": "a", "default/p2": "a"},
			orphans: []string{"huge"},
		},
		{
			// s fits a beside big's reservation (1 + 2 of 4 cpu). The scores see a empty: 75
			// against b's 50 (b holds w), so s goes to a; were the reservation scored, a would get
			// 25 and lose. big then takes a (3 of 4 cpu).
			name: "scores ignore the nominated pods",
			nodes: []Node{nominated(evenNode("a", 4000), beside),
				withPods(evenNode("b", 4000), even("w", 1000))},
			queue:  []*corev1.Pod{even("s", 1000), beside},
			placed: map[string]string{"default/s": "a", "default/big": "a"},
		},
		{
			// The same with a 3-cpu s: it does not fit beside the 2 cpu reserved on a, so it goes
			// to b (1 + 3 of 4 cpu) although a scores higher.
			name: "a pod that does not fit beside the reservation goes elsewhere",
			nodes: []Node{nominated(evenNode("a", 4000), beside),
				withPods(evenNode("b", 4000), even("w", 1000))},
			queue:  []*corev1.Pod{even("s", 3000), beside},
			placed: map[string]string{"default/s": "b", "default/big": "a"},
		},
		{
			// z does not fit a beside x's and y's 2 + 2 cpu: it goes to b. x's turn counts y's
			// reservation (2 + 2 of 4 cpu: it fits), y's turn counts x placed: both get a. Without
			// the nominations y would go to b (LeastAllocated 25 against a's 0).
			name:   "two pods nominated to one node that fit together both get it",
			nodes:  []Node{nominated(evenNode("a", 4000), x2, y2), evenNode("b", 8000)},
			queue:  []*corev1.Pod{even("z", 2000), x2, y2},
			placed: map[string]string{"default/z": "b", "default/x": "a", "default/y": "a"},
		},
		{
			// x's attempt on a counts y's reservation (same priority): 3 + 3 > 4 cpu, so x goes to
			// b; y then takes a, x's nomination gone.
			name:   "two pods nominated to one node that do not fit together: the first goes elsewhere",
			nodes:  []Node{nominated(evenNode("a", 4000), x3, y3), evenNode("b", 8000)},
			queue:  []*corev1.Pod{x3, y3},
			placed: map[string]string{"default/x": "b", "default/y": "a"},
		},
		{
			// hi's attempt on a leaves out lo (lower priority): 2 of 4 cpu, a. lo then does not fit
			// beside hi (2 + 3 > 4 cpu) and goes to b. Were lo counted, hi would go to b and lo to a.
			name:   "a nominated pod ignores a lower-priority pod nominated to its node",
			nodes:  []Node{nominated(evenNode("a", 4000), hi, lo), evenNode("b", 8000)},
			queue:  []*corev1.Pod{hi, lo},
			placed: map[string]string{"default/hi": "a", "default/lo": "b"},
		},
		{
			// lo's attempt on a counts hi (higher priority): 2 + 3 > 4 cpu, so lo goes to b; hi
			// then takes a.
			name:   "a nominated pod yields to a higher-priority pod nominated to its node",
			nodes:  []Node{nominated(evenNode("a", 4000), hi, lo), evenNode("b", 8000)},
			queue:  []*corev1.Pod{lo, hi},
			placed: map[string]string{"default/lo": "b", "default/hi": "a"},
		},
		{
			// guard's anti-affinity repels p (app x) from a, its nominated node: p goes by scores
			// to b (LeastAllocated 75 against c's 50).
			name: "a nominated node that fails the anti-affinity filter: placed by scores",
			nodes: []Node{nominated(withPods(evenNode("a", 8000), even("guard", 100, antiAffine("x", corev1.LabelHostname))), repelled),
				evenNode("b", 4000), evenNode("c", 2000)},
			queue:  []*corev1.Pod{repelled},
			placed: map[string]string{"default/p": "b"},
		},
		{
			// p's anti-affinity selects n, nominated to a: a is out for p (kube-scheduler adds n
			// to a when it filters it), which goes to b though a scores higher (87 against 50).
			name:   "the incoming pod's anti-affinity selects a pod nominated to the node",
			nodes:  []Node{nominated(evenNode("a", 8000), xOnA), evenNode("b", 2000)},
			queue:  []*corev1.Pod{even("p", 1000, antiAffine("x", corev1.LabelHostname)), xOnA},
			placed: map[string]string{"default/p": "b", "default/n": "a"},
		},
		{
			// The other way: n's anti-affinity, nominated to a, selects p (app x): p goes to b, n
			// to a.
			name:   "a nominated pod's anti-affinity selects the incoming pod",
			nodes:  []Node{nominated(evenNode("a", 8000), guardOnA), evenNode("b", 2000)},
			queue:  []*corev1.Pod{even("p", 1000, app("x")), guardOnA},
			placed: map[string]string{"default/p": "b", "default/n": "a"},
		},
		{
			// n's priority (-1) is below p's (0): its anti-affinity does not keep p from a, and
			// then, p placed there, n's own term keeps n from a: n goes to b.
			name:   "a lower-priority nominated pod's anti-affinity is not counted",
			nodes:  []Node{nominated(evenNode("a", 8000), lowGuard), evenNode("b", 2000)},
			queue:  []*corev1.Pod{even("p", 1000, app("x")), lowGuard},
			placed: map[string]string{"default/p": "a", "default/n": "b"},
		},
		{
			// Extended resources are reserved too: t0 finds g's one gpu held for t1 and waits;
			// t1 takes it (its own reservation left out, and t0's attempt having counted it on a
			// copy of g's use); t0 finds no gpu on the retry.
			name:    "a nomination reserves an extended resource",
			nodes:   []Node{nominated(gpuNode, t1)},
			queue:   []*corev1.Pod{pod("t0", "1", "1Gi", withGPU), t1},
			placed:  map[string]string{"default/t1": "g"},
			orphans: []string{"t0"},
		},
	}
	runReplayCases(t, cases)
}

// replayCase is a replay of queue on nodes and where it must put each pod (by "namespace/name"),
// and the pods (by name) it must leave over.
type replayCase struct {
	name    string
	nodes   []Node
	queue   []*corev1.Pod
	placed  map[string]string
	orphans []string
}

func runReplayCases(t *testing.T, cases []replayCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Replay(tc.nodes, tc.queue)
			require.NoError(t, err)
			assert.Equal(t, tc.placed, res.Placed)
			assert.Equal(t, tc.orphans, names(res.Orphans))
		})
	}
}

// TestReplayNominationPriority: n (3 cpu) is nominated to a (4 cpu), p (2 cpu) comes first. n's
// reservation counts against p when n's priority >= p's (nil is 0): p is then left over (3 + 2 >
// 4 cpu), n takes a, and p finds no room on the retry either. Otherwise p takes a (2 cpu) and n,
// no longer fitting (2 + 3 > 4 cpu), fails and is orphaned.
func TestReplayNominationPriority(t *testing.T) {
	prio := func(p *int32) []podOpt {
		if p == nil {
			return nil
		}
		return []podOpt{priorityOf(*p)}
	}
	i32 := func(v int32) *int32 { return &v }
	cases := []struct {
		name       string
		nominee    *int32
		incoming   *int32
		reservesTo bool // n's reservation counts against p
	}{
		{"both unset (0)", nil, nil, true},
		{"equal", i32(10), i32(10), true},
		{"nominee higher", i32(20), i32(10), true},
		{"nominee unset (0), incoming negative", nil, i32(-1), true},
		{"nominee lower", nil, i32(10), false},
		{"nominee negative, incoming unset (0)", i32(-1), nil, false},
		{"nominee lower, both set", i32(5), i32(1000), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := even("n", 3000, prio(tc.nominee)...)
			p := even("p", 2000, prio(tc.incoming)...)
			res, err := Replay([]Node{nominated(evenNode("a", 4000), n)}, []*corev1.Pod{p, n})
			require.NoError(t, err)
			if tc.reservesTo {
				assert.Equal(t, map[string]string{"default/n": "a"}, res.Placed)
				assert.Equal(t, []string{"p"}, names(res.Orphans))
			} else {
				assert.Equal(t, map[string]string{"default/p": "a"}, res.Placed)
				assert.Equal(t, []string{"n"}, names(res.Orphans))
			}
		})
	}
}

func TestReplayNominationInputErrors(t *testing.T) {
	cases := []struct {
		name  string
		nodes []Node
		want  string
	}{
		{
			// Two objects of one namespace/name are one pod.
			name: "a pod nominated to two nodes",
			nodes: []Node{nominated(node("a", "4", "16Gi", ""), pod("x", "1", "1Gi")),
				nominated(node("b", "4", "16Gi", ""), pod("y", "1", "1Gi"), pod("x", "1", "1Gi"))},
			want: `schedreplay: invalid input: nodes[1].nominated[1]: want each pod nominated to one node at most, got "default/x"`,
		},
		{
			name:  "a pod nominated twice to one node",
			nodes: []Node{node("a", "4", "16Gi", ""), nominated(node("b", "4", "16Gi", ""), pod("x", "1", "1Gi"), pod("x", "1", "1Gi"))},
			want:  `schedreplay: invalid input: nodes[1].nominated[1]: want each pod nominated to one node at most, got "default/x"`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			queue := []*corev1.Pod{pod("x", "1", "1Gi"), pod("y", "1", "1Gi")}
			res, err := Replay(tc.nodes, queue)
			require.Error(t, err)
			assert.Nil(t, res)
			assert.True(t, errors.Is(err, ErrInvalidInput), "class")
			assert.True(t, errors.Is(err, api.ErrInvalid), "bad input")
			var fe *api.FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.want, err.Error())

			// NominationsFor replays the same nodes first: the same error, no result.
			noms, err := NominationsFor(tc.nodes, queue, map[string]string{"default/x": "a"}, NominationOptions{MaxRounds: 3})
			require.Error(t, err)
			assert.Nil(t, noms)
			assert.True(t, errors.Is(err, ErrInvalidInput), "class")
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// TestReplayLeavesNominatedAlone: the replay drops nominations in its own state only; the
// caller's nodes, their Nominated slices (spare capacity included) and the pods are unchanged.
func TestReplayLeavesNominatedAlone(t *testing.T) {
	huge, large := even("huge", 8000), even("large", 3000)
	list := make([]*corev1.Pod, 2, 4)
	list[0], list[1] = huge, large
	nodes := []Node{nominated(evenNode("a", 4000), list...), evenNode("b", 4000)}
	before := cloneNodes(nodes)
	// huge fails (dropped), large takes a; both nominations are dropped in the replay's state.
	res, err := Replay(nodes, []*corev1.Pod{huge, large})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"default/large": "a"}, res.Placed)
	assert.Equal(t, []string{"huge"}, names(res.Orphans))
	assert.Equal(t, before, nodes)
	require.Len(t, nodes[0].Nominated, 2)
	assert.Same(t, huge, nodes[0].Nominated[0])
	assert.Same(t, large, nodes[0].Nominated[1])
	assert.Equal(t, []*corev1.Pod{nil, nil}, list[2:4], "spare capacity written")
}

// names are the pods' names (nil for none, as TestReplay's orphans).
func names(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

// cloneNodes is a deep copy of nodes, to compare with after a call.
func cloneNodes(nodes []Node) []Node {
	out := make([]Node, len(nodes))
	for i, n := range nodes {
		c := n
		if n.Labels != nil {
			c.Labels = map[string]string{}
			for k, v := range n.Labels {
				c.Labels[k] = v
			}
		}
		c.Taints = append([]corev1.Taint(nil), n.Taints...)
		c.Allocatable = n.Allocatable.DeepCopy()
		c.Pods = clonePods(n.Pods)
		c.Nominated = clonePods(n.Nominated)
		if n.Reserved != nil {
			c.Reserved = map[corev1.ResourceName]int64{}
			for k, v := range n.Reserved {
				c.Reserved[k] = v
			}
		}
		out[i] = c
	}
	return out
}

func clonePods(pods []*corev1.Pod) []*corev1.Pod {
	if pods == nil {
		return nil
	}
	out := make([]*corev1.Pod, len(pods))
	for i, p := range pods {
		out[i] = p.DeepCopy()
	}
	return out
}
