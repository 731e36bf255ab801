package provisioner

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

var m16 = typeSpec{name: "m16", cpu: "16", memory: "64Gi", price: 4}

// packed is a main-strategy run over in, its packing done.
func packed(t *testing.T, in Input) *engine {
	t.Helper()
	e := compileOrFail(t, in).newEngine(false)
	e.chooseFleet()
	e.place()
	return e
}

// TestImprove compares two runs over one problem, with and without the improvement phase: on the
// generic mix the phase lowers the final price and places the same pods; with a negative budget
// it changes nothing.
func TestImprove(t *testing.T) {
	in := Input{Pods: genericPods(100), NodePools: benchPool(t)}
	p := compileOrFail(t, in)
	finish := func(improve bool) (float64, int) {
		e := p.newEngine(false)
		e.chooseFleet()
		e.place()
		if improve {
			e.improve()
		}
		return totalPrice(e.finalize()), e.placedCount()
	}
	before, placedBefore := finish(false)
	after, placedAfter := finish(true)
	assert.Less(t, after, before)
	assert.Equal(t, placedBefore, placedAfter)
	assert.Equal(t, 100, placedAfter)

	in.Options.ImproveBudget = -1
	off := compileOrFail(t, in)
	e := off.newEngine(false)
	e.chooseFleet()
	e.place()
	bins := len(e.bins)
	e.improve()
	assert.Len(t, e.bins, bins)
	assert.InDelta(t, before, totalPrice(e.finalize()), 1e-9)
}

// TestImproveNeverDearer runs the property inputs twice over one problem, with and without the
// improvement phase: the phase never ends dearer and never unplaces a pod. It used to, on seeds 87
// and 191 ($5 -> $6, $4.30 -> $6): an undone evacuation trial left a receiver narrowed to the zone
// of the pod it had briefly taken, and finalize then paid that zone's dearer offering.
func TestImproveNeverDearer(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 100
	}
	for i := range n {
		in := gen{rand.New(rand.NewPCG(uint64(i), 7))}.input()
		p, err := compile(&in, in.Options.withDefaults(), false)
		require.NoError(t, err)
		finish := func(improve bool) (float64, int) {
			e := p.newEngine(false)
			e.chooseFleet()
			e.place()
			if improve {
				e.improve()
			}
			return totalPrice(e.finalize()), e.placedCount()
		}
		before, placedBefore := finish(false)
		after, placedAfter := finish(true)
		require.LessOrEqual(t, after, before+1e-9, "seed %d", i)
		require.Equal(t, placedBefore, placedAfter, "seed %d", i)
	}
}

// TestFinalize checks the finalization of packed NodeClaims: the cheapest type that fits what was
// packed, the launch list cheapest first and capped, names that skip the nodes', and the pools'
// limits.
func TestFinalize(t *testing.T) {
	full := node("p-1", "test-zone-1", "100m", "16Gi")
	cases := []struct {
		name    string
		in      Input
		retag   string // move every claim's target to this type before finalizing
		types   []string
		options [][]string
		names   []string
	}{
		{"downsized to the cheapest type that fits", Input{Pods: pods(2, "a", "900m", "1Gi"),
			NodePools: []NodePoolInput{phasePool("p", m4, m8, m16)}}, "m16",
			[]string{"m4"}, [][]string{{"m4", "m8", "m16"}}, []string{"p-1"}},
		{"launch list capped", Input{Pods: pods(2, "a", "900m", "1Gi"), Options: Options{MaxInstanceTypes: 2},
			NodePools: []NodePoolInput{phasePool("p", m16, m8, m4)}}, "",
			[]string{"m4"}, [][]string{{"m4", "m8"}}, []string{"p-1"}},
		{"names skip the nodes'", Input{Pods: pods(1, "a", "900m", "1Gi"), Nodes: []ExistingNode{full},
			NodePools: []NodePoolInput{phasePool("p", m4)}}, "",
			[]string{"m4"}, [][]string{{"m4"}}, []string{"p-2"}},
		{"launch list within the limits", Input{Pods: pods(1, "a", "3", "1Gi"), Nodes: []ExistingNode{poolNode("n1", "p", "4", pod("x", "4", "1Gi"))},
			NodePools: []NodePoolInput{withLimit(phasePool("p", m4, m8), "8")}}, "",
			[]string{"m4"}, [][]string{{"m4"}}, []string{"p-1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := packed(t, tc.in)
			if tc.retag != "" {
				for _, b := range e.bins[e.fixedBins:] {
					for i, pt := range b.pool.types {
						if pt.name == tc.retag {
							b.target, b.cap = i, pt.alloc
						}
					}
				}
			}
			chs := e.finalize()
			var types, names []string
			var options [][]string
			for _, ch := range chs {
				types = append(types, ch.b.pool.types[ch.t].name)
				options = append(options, ch.options)
				names = append(names, ch.name)
			}
			assert.Equal(t, tc.types, types)
			assert.Equal(t, tc.options, options)
			assert.Equal(t, tc.names, names)
		})
	}
}

// TestLowerBound checks the bound on inputs whose optimum is known: never above the price, at the
// volume bound when pods pack evenly, one node per anti-affine pod, nothing when the existing
// nodes take everything.
func TestLowerBound(t *testing.T) {
	anti := func(p *corev1.Pod) {
		withLabels("app", "db")(p)
		withAntiAffinity(api.LabelHostname, selector("app", "db"))(p)
	}
	cases := []struct {
		name     string
		in       Input
		min, max float64
	}{
		// 8 x 900m on m4 (3,900m allocatable, $1): the volume LP needs 7.2/3.9 nodes; two are optimal.
		{"volume", Input{Pods: pods(8, "p", "900m", "1Gi")}, 7.2 / 3.9, 2},
		{"one node per anti-affine pod", Input{Pods: pods(3, "db", "100m", "100Mi", anti)}, 3, 3},
		{"existing nodes take everything", Input{Pods: pods(3, "p", "900m", "1Gi"),
			Nodes: []ExistingNode{node("n1", "test-zone-1", "4", "16Gi")}}, 0, 0},
		{"no pods", Input{}, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.NodePools = []NodePoolInput{phasePool("p", m4)}
			e := compileOrFail(t, tc.in).newEngine(false)
			price := totalPrice(e.run())
			bound := e.lowerBound()
			require.LessOrEqual(t, bound, price+1e-9)
			assert.GreaterOrEqual(t, bound, tc.min-1e-6)
			assert.LessOrEqual(t, bound, tc.max+1e-6)
		})
	}
}

// TestExplain checks the explanation phase on the state a run leaves: each class still queued gets
// the code of the check its pods failed, and the message names the pool.
func TestExplain(t *testing.T) {
	tainted := phasePool("p", m4)
	tainted.NodePool.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	cases := []struct {
		name string
		in   Input
		code Code
		msg  string
	}{
		{"bigger than every type", Input{Pods: []*corev1.Pod{pod("huge", "64", "1Gi")}, NodePools: []NodePoolInput{phasePool("p", m4)}},
			CodeResources, "NodePool p"},
		{"taint not tolerated", Input{Pods: []*corev1.Pod{pod("a", "1", "1Gi")}, NodePools: []NodePoolInput{tainted}},
			CodeTaint, "gpu=true:NoSchedule"},
		{"limit reached", Input{Pods: []*corev1.Pod{pod("a", "3", "1Gi")}, Nodes: []ExistingNode{poolNode("n1", "p", "4", pod("x", "4", "1Gi"))},
			NodePools: []NodePoolInput{withLimit(phasePool("p", m4), "4")}}, CodeLimits, "NodePool p cpu limit"},
		{"no NodePool", Input{Pods: []*corev1.Pod{pod("a", "1", "1Gi")}}, CodeNoNodePool, "no NodePool"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := compileOrFail(t, tc.in).newEngine(false)
			e.run()
			var queued []*podClass
			for _, c := range e.classes {
				if e.remaining(c) > 0 {
					queued = append(queued, c)
				}
			}
			require.Len(t, queued, 1)
			r := e.explain(queued[0])
			assert.Equal(t, tc.code, r.code)
			assert.Contains(t, r.msg, tc.msg)
		})
	}
}
