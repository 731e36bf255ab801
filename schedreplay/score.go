package schedreplay

import (
	"math"

	corev1 "k8s.io/api/core/v1"
)

// Score weights of the default profile (pkg/scheduler/apis/config/v1/default_plugins.go).
const (
	weightFit      = 1
	weightBalanced = 1
	weightSpread   = 2
	maxNodeScore   = 100
)

// best is the feasible node with the highest weighted score; on a tie the first, or one drawn
// from st.rand.
func (st *state) best(pc *podCtx, feasible []int) int {
	spreadScores := st.spreadScores(pc, feasible)
	best, bestScore, ties := -1, int64(math.MinInt64), 0
	for k, i := range feasible {
		ns := &st.nodes[i]
		s := weightFit*leastAllocated(ns, pc) + weightBalanced*balanced(ns, pc)
		if spreadScores != nil {
			s += weightSpread * spreadScores[k]
		}
		switch {
		case s > bestScore:
			best, bestScore, ties = i, s, 1
		case s == bestScore && st.rand != nil:
			// kube-scheduler's selectHost: each of the equal best nodes with the same chance
			// (reservoir sampling, pkg/scheduler/schedule_one.go).
			ties++
			if st.rand.IntN(ties) == 0 {
				best = i
			}
		}
	}
	return best
}

// leastAllocated is NodeResourcesFit's default score: the share left free, mean of cpu and memory.
func leastAllocated(ns *nodeState, pc *podCtx) int64 {
	var score, weights int64
	for _, r := range [2][2]int64{{ns.nzCPU + pc.nzCPU, ns.allocCPU}, {ns.nzMem + pc.nzMem, ns.allocMem}} {
		requested, alloc := r[0], r[1]
		if alloc == 0 {
			continue
		}
		weights++
		if requested <= alloc {
			score += (alloc - requested) * maxNodeScore / alloc
		}
	}
	if weights == 0 {
		return 0
	}
	return score / weights
}

// balanced is NodeResourcesBalancedAllocation's score in v1.37: how much the pod improves the
// balance of cpu and memory use.
func balanced(ns *nodeState, pc *podCtx) int64 {
	if pc.bestEffort {
		return 0
	}
	with := balanceScore(ns.usedCPU+pc.cpu, ns.usedMem+pc.mem, ns.allocCPU, ns.allocMem)
	without := balanceScore(ns.usedCPU, ns.usedMem, ns.allocCPU, ns.allocMem)
	return maxNodeScore/2 + (maxNodeScore/2+with-without)/2
}

// balanceScore is (1 - std) * 100 of the cpu and memory fractions (capped at 1); with only one of
// them allocatable the deviation is 0.
func balanceScore(cpu, mem, allocCPU, allocMem int64) int64 {
	std := 0.0
	if allocCPU > 0 && allocMem > 0 {
		std = math.Abs(min(float64(cpu)/float64(allocCPU), 1)-min(float64(mem)/float64(allocMem), 1)) / 2
	}
	return int64((1 - std) * maxNodeScore)
}

// spreadScores is PodTopologySpread's normalized score per feasible node, or nil when the pod has
// no soft constraint (every node then scores the same).
func (st *state) spreadScores(pc *podCtx, feasible []int) []int64 {
	if len(pc.soft) == 0 {
		return nil
	}
	ignored := make([]bool, len(feasible))
	weights := make([]float64, len(pc.soft))
	for c, s := range pc.soft {
		seen := make([]bool, st.domains(s.key).n)
		size := 0
		for k, i := range feasible {
			d := s.of[i]
			if d < 0 && pc.softOwn {
				ignored[k] = true
			}
			if d >= 0 && !seen[d] {
				seen[d] = true
				size++
			}
		}
		if s.key == corev1.LabelHostname {
			size = len(feasible)
		}
		weights[c] = math.Log(float64(size + 2))
	}
	raw := make([]int64, len(feasible))
	for k, i := range feasible {
		var score float64
		for c, s := range pc.soft {
			if n, ok := s.count(i, s.host); ok {
				score += float64(n)*weights[c] + float64(s.maxSkew-1)
			}
		}
		raw[k] = int64(math.Round(score))
	}
	return normalizeSpread(raw, ignored)
}

// normalizeSpread is PodTopologySpread's NormalizeScore: fewer matching pods, higher score.
func normalizeSpread(raw []int64, ignored []bool) []int64 {
	lo, hi := int64(math.MaxInt64), int64(0)
	for k, s := range raw {
		if ignored[k] {
			continue
		}
		lo, hi = min(lo, s), max(hi, s)
	}
	out := make([]int64, len(raw))
	for k, s := range raw {
		switch {
		case ignored[k]:
		case hi == 0:
			out[k] = maxNodeScore
		default:
			out[k] = maxNodeScore * (hi + lo - s) / hi
		}
	}
	return out
}
