package provisioner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// TestChooseFleet checks the fleet choice alone: the main strategy opens, empty, the NodeClaims the
// guidance LP plans, with quotas for every pending pod; the baseline opens none. Both price the
// pools' resources.
func TestChooseFleet(t *testing.T) {
	cases := []struct {
		name     string
		pods     []*corev1.Pod
		baseline bool
		claims   int // empty NodeClaims opened
		quota    int // pods they are planned for
	}{
		{"eight 900m pods fill two m4", pods(8, "p", "900m", "1Gi"), false, 2, 8},
		{"nine need a third", pods(9, "p", "900m", "1Gi"), false, 3, 9},
		{"baseline opens nothing", pods(8, "p", "900m", "1Gi"), true, 0, 0},
		{"no pods, no fleet", nil, false, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := compileOrFail(t, Input{Pods: tc.pods, NodePools: []NodePoolInput{phasePool("p", m4)}})
			e := p.newEngine(tc.baseline)
			e.chooseFleet()
			quota := 0
			for _, b := range e.bins[e.fixedBins:] {
				assert.Empty(t, b.pods)
				assert.Equal(t, "m4", p.allPools[0].types[b.target].name)
				for _, q := range b.quota {
					quota += q.n
				}
			}
			assert.Len(t, e.bins[e.fixedBins:], tc.claims)
			assert.Equal(t, tc.quota, quota)
			assert.Contains(t, e.duals, 0, "pool 0 priced")
			for _, c := range p.allClasses {
				assert.Equal(t, len(c.pods), e.remaining(c), "nothing placed yet")
			}
		})
	}
}

// TestPlace checks the placement on small inputs, under both strategies: existing nodes first,
// one pod per node under hostname anti-affinity, cordoned nodes skipped, pods too big for any
// type left queued.
func TestPlace(t *testing.T) {
	anti := func(p *corev1.Pod) {
		withLabels("app", "db")(p)
		withAntiAffinity(api.LabelHostname, selector("app", "db"))(p)
	}
	cordoned := node("n1", "test-zone-1", "4", "16Gi")
	cordoned.Node.Spec.Unschedulable = true
	cases := []struct {
		name   string
		in     Input
		onNode int // pods on existing nodes
		claims int // new NodeClaims holding pods
		queued int // pods left unplaced
		apart  bool
	}{
		{"existing node first", Input{Pods: pods(3, "p", "900m", "1Gi"), Nodes: []ExistingNode{node("n1", "test-zone-1", "4", "16Gi")}},
			3, 0, 0, false},
		{"the rest on new NodeClaims", Input{Pods: pods(6, "p", "900m", "1Gi"), Nodes: []ExistingNode{node("n1", "test-zone-1", "2", "16Gi")}},
			2, 1, 0, false},
		{"anti-affinity one per node", Input{Pods: pods(3, "db", "100m", "100Mi", anti)}, 0, 3, 0, true},
		{"cordoned node takes nothing", Input{Pods: pods(2, "p", "900m", "1Gi"), Nodes: []ExistingNode{cordoned}}, 0, 1, 0, false},
		{"too big for every type", Input{Pods: []*corev1.Pod{pod("huge", "64", "1Gi"), pod("p", "1", "1Gi")}}, 0, 1, 1, false},
	}
	for _, tc := range cases {
		for _, baseline := range []bool{false, true} {
			name := tc.name + map[bool]string{false: "/main", true: "/baseline"}[baseline]
			t.Run(name, func(t *testing.T) {
				tc.in.NodePools = []NodePoolInput{phasePool("p", m4)}
				e := compileOrFail(t, tc.in).newEngine(baseline)
				e.chooseFleet()
				e.place()
				where := placedOn(e)
				onNode, queued := 0, 0
				for _, pi := range e.pods {
					if b := e.binOf(pi); b == nil {
						queued++
					} else if b.kind == binNode {
						onNode++
					}
				}
				assert.Equal(t, tc.onNode, onNode, "pods on nodes: %v", where)
				assert.Equal(t, tc.claims, liveNewBins(e), "claims: %v", where)
				assert.Equal(t, tc.queued, queued)
				if tc.apart {
					seen := map[string]bool{}
					for _, b := range where {
						require.False(t, seen[b], "two anti-affine pods on %s", b)
						seen[b] = true
					}
				}
				for _, b := range e.bins {
					assert.True(t, b.used.fits(b.cap) || b.growable, "bin %d overcommitted", b.id)
				}
			})
		}
	}
}
