package controller

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/schedreplay"
)

// TestPredictNominations: on orphanInput4 the plan packs the two 1.5-core pods on one 4-core node
// and the 3-core pod on another; LeastAllocated would put one small pod on each and strand the
// large one (TestCoverOrphans). Nominating the large pod to its node keeps its room: the small
// pods then share the other node, and that is the placement the claims hold.
func TestPredictNominations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		cpus   []string
		want   []string // nominated pods
		claims []string // pods per claim after the prediction
	}{
		{name: "the large pod is nominated", cpus: []string{"1500m", "1500m", "3"}, want: []string{"default/pc"},
			claims: []string{"default/pa,default/pb", "default/pc"}},
		{name: "nothing stranded, nothing nominated", cpus: []string{"1", "1", "1"},
			claims: []string{"default/pa,default/pb,default/pc"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			in := orphanInput4(t, tc.cpus...)
			plan, err := provisioner.Solve(in)
			require.NoError(t, err)
			got, err := e.c.predictNominations(in, plan)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.ElementsMatch(t, tc.claims, podLists(plan.NodeClaims))
		})
	}
}

// TestPredictNominationsScaleMix: on the suite's 1,000-pod batch the prediction nominates a few
// dozen pods, not one per pod; every pod stays on exactly one claim; and varied replays of
// kube-scheduler with those nominations (other tie-breaks, a jittered queue, another seed than
// the prediction's) strand no more than one pod in a few, where the plan's placement without
// them strands pods in most.
func TestPredictNominationsScaleMix(t *testing.T) {
	t.Parallel()
	in := scaleMixInput(t, 20)
	plan, err := provisioner.Solve(in)
	require.NoError(t, err)
	before := replayOrphans(t, in, plan, nil)
	e := newTestEnv(t)
	got, err := e.c.predictNominations(in, plan)
	require.NoError(t, err)
	assert.Less(t, len(got), len(in.Pods)/10, "a few nominations, not one per pod")
	seen := map[string]int{}
	for _, nc := range plan.NodeClaims {
		for _, key := range nc.Pods {
			seen[key]++
		}
	}
	assert.Len(t, seen, len(in.Pods))
	for key, n := range seen {
		require.Equal(t, 1, n, key)
	}
	after := replayOrphans(t, in, plan, got)
	t.Logf("varied replays stranding pods: %d of 40 without nominations, %d of 40 with %d", before, after, len(got))
	assert.Greater(t, before, 20)
	assert.LessOrEqual(t, after, 5)
}

// replayOrphans counts, of 40 varied replays (seed 99, ties at random, queue jittered by 60) of
// the plan's claims with the nominated pods (keys) nominated to the claim holding them, those
// that strand a pod.
func replayOrphans(t *testing.T, in provisioner.Input, plan *provisioner.Plan, nominated []string) int {
	t.Helper()
	byKey := map[string]*corev1.Pod{}
	for _, pod := range in.Pods {
		byKey[pod.Namespace+"/"+pod.Name] = pod
	}
	claims := newReplayClaims(plan.NodeClaims, byKey)
	nodes := claims.nodes()
	chosen := map[string]bool{}
	for _, key := range nominated {
		chosen[key] = true
	}
	for i, nc := range claims.planned {
		for _, key := range nc.Pods {
			if chosen[key] {
				nodes[i].Nominated = append(nodes[i].Nominated, byKey[key])
			}
		}
	}
	rng := rand.New(rand.NewPCG(99, 1))
	stranding := 0
	for range 40 {
		res, err := schedreplay.ReplayWith(nodes, claims.queue(byKey), schedreplay.Options{Rand: rng, QueueJitter: 60})
		require.NoError(t, err)
		if len(res.Orphans) > 0 {
			stranding++
		}
	}
	return stranding
}

// TestNominatePredicted: with the predicted policy a registration nominates only the pods the
// batch's prediction chose; a pod the hold released loses the mark.
func TestNominatePredicted(t *testing.T) {
	t.Parallel()
	e := plannedEnv(t)
	node, nc := e.registering(t, NominatePredicted)
	e.storePod(t, newPod("chosen", unschedulable()), newPod("free", unschedulable()), newPod("moved", unschedulable()))
	e.c.planned.record("nowhere", []string{"default/moved"}, testNow.Add(-time.Minute))
	e.c.planned.markPredicted([]string{"default/moved"})
	holdFresh(e.c.takeSnapshot(), e.c.planned, 20*time.Second)
	require.False(t, e.c.planned.wasPredicted("default/moved"), "released: its target is gone")
	// The next plan puts all three on default-1 and its prediction chooses "chosen".
	e.c.planned.record("default-1", []string{"default/chosen", "default/free", "default/moved"}, testNow)
	e.c.planned.markPredicted([]string{"default/chosen"})
	e.kube.ClearActions()

	require.NoError(t, e.c.register(context.Background(), nc, node))
	assert.Equal(t, []string{"patch pods/status chosen", "update nodes aks-default-1"}, podNodeWrites(e))
	assert.Equal(t, "aks-default-1", storedNomination(t, e, "chosen"))
	assert.Empty(t, storedNomination(t, e, "free"))
	assert.Empty(t, storedNomination(t, e, "moved"))
}
