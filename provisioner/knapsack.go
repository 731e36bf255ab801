package provisioner

import (
	"cmp"
	"slices"

	"github.com/napkit/napkit/provisioner/internal/lp"
)

// knap is one pricing problem of column generation: which pods (counts per shape) one node of
// capacity cap should hold to be worth the most at dual prices y. Shapes of a per-node group (the
// owners of a hostname anti-affinity, of a hostname spread, or pods binding one host port) share
// a cap on how many of them one node may hold.
type knap struct {
	e        *engine
	cap      resVec
	shapes   []*shape
	y        []float64
	groupCap []int
	order    []int // shapes worth packing, best value per scarcest resource first
	maxFit   []int
	total    int
}

func (e *engine) newKnap(cap resVec, shapes []*shape, counts []int, y []float64, groupCap []int) *knap {
	kp := &knap{e: e, cap: cap, shapes: shapes, y: y, groupCap: groupCap, maxFit: make([]int, len(shapes))}
	density := make([]float64, len(shapes))
	for s, sh := range shapes {
		if counts[s] == 0 || y[s] <= 0 {
			continue
		}
		n := copiesInto(sh.req, cap, e.rt.zero(), counts[s])
		if sh.group >= 0 {
			n = min(n, groupCap[sh.group])
		}
		if n == 0 {
			continue
		}
		kp.maxFit[s] = n
		density[s] = y[s] / scarcest(sh.req, cap)
		kp.order = append(kp.order, s)
		kp.total += n
	}
	slices.SortStableFunc(kp.order, func(a, b int) int { return cmp.Compare(density[b], density[a]) })
	return kp
}

// knapsack solves the pricing problem: small nodes (few pods fit) exactly by branch and bound,
// larger ones by rounding the LP relaxation and by a greedy, whichever is worth more. It also
// returns an upper bound on the best value: exact when the search completed, else the LP bound.
//
// effort trades time for exactness: packing searches nodes of up to 32 pods with a small budget;
// the bound, whose quality depends on exact values, searches nodes of up to 64 pods longer.
func (e *engine) knapsack(cap resVec, shapes []*shape, counts []int, y []float64, groupCap []int, effort knapEffort) ([]int, float64, float64) {
	kp := e.newKnap(cap, shapes, counts, y, groupCap)
	k, v := kp.fill(nil)
	if kp.total <= effort.maxPods {
		bb := kp.search(k, v, effort.budget)
		if bb.budget > 0 {
			return bb.bestK, bb.best, bb.best
		}
		k, v = bb.bestK, bb.best
	}
	ub, frac := kp.relaxation()
	if frac != nil {
		if rk, rv := kp.fill(frac); rv > v {
			k, v = rk, rv
		}
	}
	return k, v, max(v, ub)
}

// knapEffort bounds the branch and bound: nodes holding at most maxPods are searched, for at most
// budget search nodes.
type knapEffort struct{ maxPods, budget int }

var (
	packEffort  = knapEffort{maxPods: 32, budget: 3000}
	boundEffort = knapEffort{maxPods: 64, budget: 20000}
)

// scarcest is the largest share of any capacity one pod takes.
func scarcest(req, cap resVec) float64 {
	s := 0.0
	for r, v := range req {
		if v > 0 && cap[r] > 0 {
			s = max(s, float64(v)/float64(cap[r]))
		}
	}
	return max(s, 1e-12)
}

// fill takes, in density order, floor(start) of each shape (none without start) and then tops the
// node up greedily.
func (kp *knap) fill(start []float64) ([]int, float64) {
	k := make([]int, len(kp.shapes))
	used := kp.e.rt.zero()
	groups := make([]int, len(kp.groupCap))
	var v float64
	take := func(s, want int) {
		sh := kp.shapes[s]
		n := copiesInto(sh.req, kp.cap, used, want)
		if sh.group >= 0 {
			n = min(n, kp.groupCap[sh.group]-groups[sh.group])
			groups[sh.group] += n
		}
		if n <= 0 {
			return
		}
		k[s] += n
		used.addScaled(sh.req, int64(n))
		v += float64(n) * kp.y[s]
	}
	if start != nil {
		for i, s := range kp.order {
			take(s, min(int(start[i]+1e-9), kp.maxFit[s]))
		}
	}
	for _, s := range kp.order {
		take(s, kp.maxFit[s]-k[s])
	}
	return k, v
}

// relaxation solves the LP relaxation (capacities and group caps as rows, maxFit as bounds) and
// returns a valid upper bound on the best value with the fractional counts (per entry of order),
// which fill rounds.
func (kp *knap) relaxation() (float64, []float64) {
	if len(kp.order) == 0 {
		return 0, nil
	}
	R, G := len(kp.cap), len(kp.groupCap)
	value := make([]float64, len(kp.order))
	upper := make([]float64, len(kp.order))
	capacity := make([]float64, R+G)
	W := make([][]float64, R+G)
	for i := range W {
		W[i] = make([]float64, len(kp.order))
	}
	for r := range R {
		capacity[r] = float64(kp.cap[r])
	}
	for g, c := range kp.groupCap {
		capacity[R+g] = float64(c)
	}
	for j, s := range kp.order {
		value[j], upper[j] = kp.y[s], float64(kp.maxFit[s])
		for r, d := range kp.shapes[s].req {
			W[r][j] = float64(d)
		}
		if g := kp.shapes[s].group; g >= 0 {
			W[R+g][j] = 1
		}
	}
	x, bound := lp.Knapsack(value, W, capacity, upper)
	return bound * (1 + 1e-9), x
}

// knapSearch is a depth-first branch and bound over counts per shape, in density order.
type knapSearch struct {
	kp     *knap
	k      []int
	used   resVec
	groups []int
	best   float64
	bestK  []int
	budget int
	// suffix[i][r] is the best value per unit of resource r among order[i:], or 0 when some shape
	// of order[i:] does not use r (then r cannot bound their value).
	suffix [][]float64
}

func (kp *knap) search(k []int, v float64, budget int) *knapSearch {
	ks := &knapSearch{kp: kp, k: make([]int, len(kp.shapes)), used: kp.e.rt.zero(), groups: make([]int, len(kp.groupCap)),
		best: v, bestK: k, budget: budget}
	n, R := len(kp.order), len(kp.cap)
	ks.suffix = make([][]float64, n+1)
	ks.suffix[n] = make([]float64, R)
	usable := make([]bool, R)
	for r := range usable {
		usable[r] = true
	}
	for i := n - 1; i >= 0; i-- {
		row := append([]float64(nil), ks.suffix[i+1]...)
		s := kp.order[i]
		for r, d := range kp.shapes[s].req {
			if d <= 0 {
				usable[r] = false
			}
			if usable[r] {
				row[r] = max(row[r], kp.y[s]/float64(d))
			} else {
				row[r] = 0
			}
		}
		ks.suffix[i] = row
	}
	ks.run(0, 0)
	return ks
}

func (ks *knapSearch) run(i int, value float64) {
	kp := ks.kp
	if value > ks.best+1e-12 {
		ks.best, ks.bestK = value, append([]int(nil), ks.k...)
	}
	if i == len(kp.order) || ks.budget <= 0 || value+ks.upper(i) <= ks.best+1e-12 {
		return
	}
	ks.budget--
	s := kp.order[i]
	sh := kp.shapes[s]
	n := copiesInto(sh.req, kp.cap, ks.used, kp.maxFit[s])
	if sh.group >= 0 {
		n = min(n, kp.groupCap[sh.group]-ks.groups[sh.group])
	}
	for c := n; c >= 0; c-- {
		ks.k[s] = c
		ks.used.addScaled(sh.req, int64(c))
		if sh.group >= 0 {
			ks.groups[sh.group] += c
		}
		ks.run(i+1, value+float64(c)*kp.y[s])
		ks.used.addScaled(sh.req, -int64(c))
		if sh.group >= 0 {
			ks.groups[sh.group] -= c
		}
	}
	ks.k[s] = 0
}

// upper bounds the value the shapes from i on can add: in every resource they all use, what is left
// times the best value per unit of that resource (every shape uses a pod slot, so some row is
// finite).
func (ks *knapSearch) upper(i int) float64 {
	bound, found := 0.0, false
	for r, best := range ks.suffix[i] {
		if best <= 0 {
			continue
		}
		v := float64(ks.kp.cap[r]-ks.used[r]) * best
		if !found || v < bound {
			bound, found = v, true
		}
	}
	return bound
}
