package consolidation

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReplayCheckerCatches makes sure the replay checker the pacing property test relies on does
// object: to a move order whose end state is fine but whose second step skews a zone spread, to a
// hostname anti-affinity break in either direction, and not to a good order.
func TestReplayCheckerCatches(t *testing.T) {
	// x in test-zone-1 and y in test-zone-2 hold nothing of app=s; gone in test-zone-3 holds four
	// pods of app=s spread by zone (maxSkew 1), and one pod refusing hosts with app=solo pods.
	build := func() Input {
		c := newFxCluster(fxSizedTypes(8), fxPool("general", fxOD))
		c.node("x", "", fxSizeName(8), fxZones[0], fxOD, fxPod("solo", "100m", "64Mi"))
		c.node("y", "", fxSizeName(8), fxZones[1], fxOD)
		c.node("gone", "", fxSizeName(8), fxZones[2], fxOD, append(fxPods(4, "s", "100m", "64Mi", fxZoneSpread("s")),
			fxPod("loner", "100m", "64Mi", fxAntiAffinity("solo")))...)
		return c.input()
	}
	plan := func(moves ...Move) *Plan {
		return &Plan{Commands: []Command{{Kind: CommandDelete, Reason: ReasonUnderutilized, Nodes: []string{"gone"}, Moves: moves}}}
	}
	tests := []struct {
		name  string
		plan  *Plan
		wants []string
	}{
		{"interleaved order keeps the spread", plan(Move{"default/s-0", "x"}, Move{"default/s-1", "y"},
			Move{"default/s-2", "x"}, Move{"default/s-3", "y"}, Move{"default/loner", "y"}), nil},
		{"same end state, skewed on the way", plan(Move{"default/s-0", "x"}, Move{"default/s-1", "x"},
			Move{"default/s-2", "y"}, Move{"default/s-3", "y"}), []string{"move 1: pod default/s-1 to x: spread on topology.kubernetes.io/zone: domain test-zone-1 would hold 2 against a minimum of 0, skew 2 > maxSkew 1"}},
		{"anti-affinity of the moved pod", plan(Move{"default/loner", "x"}), []string{"move 0: pod default/loner to x: its anti-affinity (kubernetes.io/hostname) excludes default/solo on x"}},
		{"pods without a conflict share a node", plan(Move{"default/loner", "y"}, Move{"default/s-0", "y"}), nil},
		{"unknown destination", plan(Move{"default/s-0", "z"}), []string{"goes to unknown node z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems, _ := replayPlan(build(), tt.plan)
			if len(tt.wants) == 0 {
				assert.Empty(t, problems)
				return
			}
			all := strings.Join(problems, "\n")
			for _, w := range tt.wants {
				assert.Contains(t, all, w)
			}
		})
	}
	// The reverse direction: a placed pod whose term selects the newcomer.
	in := build()
	in.Nodes[1].Pods = append(in.Nodes[1].Pods, fxPod("guard", "100m", "64Mi", fxAntiAffinity("s")))
	problems, _ := replayPlan(in, plan(Move{"default/s-0", "y"}))
	assert.Contains(t, strings.Join(problems, "\n"), "the anti-affinity (kubernetes.io/hostname) of default/guard on y excludes it")
}
