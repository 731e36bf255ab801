package controller

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/schedreplay"
)

// predictRounds bounds the replays of one batch's prediction: each round nominates the pods the
// last one stranded, and a 1,000-pod batch needs a few (one replay of it takes ~16 ms).
const predictRounds = 8

// predictSamples and predictJitter vary each round's replays (schedreplay.NominationOptions):
// kube-scheduler breaks ties at random and its queue follows the pods' creation only roughly.
const (
	predictSamples = 8
	predictJitter  = 100
)

// nominatesBatch reports whether a batch planned while n pods are pending (the batch's and those
// held for earlier plans) gets nominations at its nodes' registration, its nodes then released
// together (batchrelease.go): a policy other than off, and not past the pending bound, above
// which no nomination is written while the burst lasts (NominateMaxPending; a replay of
// thousands of pods on hundreds of claims would also take a second a round). Counting the batch
// alone held a 10,000-pod burst's 759-pod batch: its 168 nodes waited for one another while
// 9,241 held pods kept every nomination back (docs/benchmarks.md, sixteenth session).
func (c *Controller) nominatesBatch(n int) bool {
	return c.cfg.NominatePods != NominateOff && (c.cfg.NominateMaxPending < 0 || n <= c.cfg.NominateMaxPending)
}

// predictNominations replays kube-scheduler on the batch's new claims (NominatePredicted) and
// returns the pods to nominate at their node's registration: those its spread would strand,
// nominated to the claim the plan put them on, round by round until the replay strands none.
// Each claim's pods become the replay's placement, which the hold then expects; a pod the replay
// still strands stays on its planned claim, and a claim left empty is dropped.
func (c *Controller) predictNominations(in provisioner.Input, plan *provisioner.Plan) ([]string, error) {
	byKey := podsByKey(in.Pods)
	claims := newReplayClaims(plan.NodeClaims, byKey)
	planned := map[string]string{}
	for i, nc := range claims.planned {
		for _, key := range nc.Pods {
			planned[key] = replayName(i)
		}
	}
	got, err := schedreplay.NominationsFor(claims.nodes(), claims.queue(byKey), planned,
		schedreplay.NominationOptions{MaxRounds: predictRounds, Samples: predictSamples, QueueJitter: predictJitter, Seed: c.cfg.Seed})
	if err != nil {
		return nil, fmt.Errorf("replay kube-scheduler on %d NodeClaims: %w", len(claims.planned), err)
	}
	claims.assign(got.Result)
	claims.keep(got.Result.Orphans, planned)
	claims.refit(in, byKey)
	plan.NodeClaims = claims.nonEmpty()
	c.log.Info("predicted kube-scheduler's placement", "nodeClaims", len(claims.planned), "pods", len(planned),
		"nominations", len(got.Pods), "rounds", got.Rounds, "strandedStill", len(got.Result.Orphans))
	return slices.Sorted(maps.Keys(got.Pods)), nil
}

// keep puts the orphans back on the claims planned for them (replay names): nothing better is
// known for them, and held there they are not planned again at once.
func (rc *replayClaims) keep(orphans []*corev1.Pod, planned map[string]string) {
	index := make(map[string]int, len(rc.planned))
	for i := range rc.planned {
		index[replayName(i)] = i
	}
	for _, pod := range orphans {
		key := pod.Namespace + "/" + pod.Name
		if i, ok := index[planned[key]]; ok {
			rc.planned[i].Pods = append(rc.planned[i].Pods, key)
			slices.Sort(rc.planned[i].Pods)
		}
	}
}
