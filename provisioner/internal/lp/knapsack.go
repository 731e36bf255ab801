package lp

import "math"

// Knapsack solves the LP relaxation of a bounded multi-dimensional knapsack,
//
//	maximise   Σ_j value_j·x_j
//	subject to Σ_j W[i][j]·x_j ≤ Cap[i],  0 ≤ x_j ≤ Upper[j],
//
// with a bounded-variable primal simplex on the few capacity rows (the upper bounds are handled by
// bound flips, not rows). It returns the fractional x and an upper bound on the integer (and
// fractional) optimum computed from the final dual prices p ≥ 0 as Σ Cap·p + Σ Upper·max(0,
// value − Wᵀp), which is valid for any p, so the bound stays safe even if the simplex stops early.
func Knapsack(value []float64, W [][]float64, capacity, upper []float64) (x []float64, bound float64) {
	m, n := len(capacity), len(value)
	k := newKnapTableau(value, W, capacity, upper)
	k.run(20 * (m + n + 1))
	x = make([]float64, n)
	for j := range n {
		if k.atUpper[j] {
			x[j] = upper[j]
		}
	}
	for i, b := range k.basis {
		if b < n {
			x[b] = math.Max(0, math.Min(upper[b], k.beta[i]))
		}
	}
	return x, k.dualBound(value, W, capacity, upper)
}

type knapTableau struct {
	m, n    int
	t       []float64 // m rows × (n+m) columns: B⁻¹[W | I]
	d       []float64 // reduced costs (maximisation: positive means worth increasing)
	beta    []float64 // basic values
	basis   []int
	upper   []float64 // per column; slacks unbounded
	atUpper []bool
}

func newKnapTableau(value []float64, W [][]float64, capacity, upper []float64) *knapTableau {
	m, n := len(capacity), len(value)
	w := n + m
	k := &knapTableau{m: m, n: n, t: make([]float64, m*w), d: make([]float64, w), beta: make([]float64, m),
		basis: make([]int, m), upper: make([]float64, w), atUpper: make([]bool, w)}
	copy(k.d, value)
	copy(k.upper, upper)
	for i := range m {
		copy(k.t[i*w:i*w+n], W[i])
		k.t[i*w+n+i] = 1
		k.beta[i] = math.Max(0, capacity[i])
		k.basis[i] = n + i
		k.upper[n+i] = math.Inf(1)
	}
	return k
}

func (k *knapTableau) run(maxIter int) {
	for range maxIter {
		j, dir := k.entering()
		if j < 0 {
			return
		}
		k.step(j, dir)
	}
}

// entering picks the nonbasic column whose move improves the objective most per unit.
func (k *knapTableau) entering() (int, float64) {
	best, at, dir := 1e-12, -1, 0.0
	for j := 0; j < k.n+k.m; j++ {
		if k.isBasic(j) {
			continue
		}
		if !k.atUpper[j] && k.d[j] > best && k.upper[j] > 0 {
			best, at, dir = k.d[j], j, 1
		} else if k.atUpper[j] && -k.d[j] > best {
			best, at, dir = -k.d[j], j, -1
		}
	}
	return at, dir
}

func (k *knapTableau) isBasic(j int) bool {
	for _, b := range k.basis {
		if b == j {
			return true
		}
	}
	return false
}

// step moves column j by θ in direction dir: to its other bound (a flip) or until a basic variable
// hits a bound (a pivot).
func (k *knapTableau) step(j int, dir float64) {
	w := k.n + k.m
	theta, row, toUpper := k.upper[j], -1, false
	for i := range k.m {
		a := k.t[i*w+j] * dir
		b := k.basis[i]
		switch {
		case a > 1e-12:
			if r := k.beta[i] / a; r < theta {
				theta, row, toUpper = r, i, false
			}
		case a < -1e-12 && !math.IsInf(k.upper[b], 1):
			if r := (k.upper[b] - k.beta[i]) / -a; r < theta {
				theta, row, toUpper = r, i, true
			}
		}
	}
	if math.IsInf(theta, 1) {
		return
	}
	for i := range k.m {
		k.beta[i] -= theta * dir * k.t[i*w+j]
	}
	if row < 0 {
		k.atUpper[j] = !k.atUpper[j]
		return
	}
	entering := theta * dir
	if k.atUpper[j] {
		entering += k.upper[j]
	}
	leaving := k.basis[row]
	k.pivot(row, j)
	k.beta[row] = entering
	k.atUpper[j] = false
	k.atUpper[leaving] = toUpper
}

func (k *knapTableau) pivot(r, j int) {
	w := k.n + k.m
	prow := k.t[r*w : (r+1)*w]
	inv := 1 / prow[j]
	for c := range prow {
		prow[c] *= inv
	}
	for i := range k.m {
		if i == r {
			continue
		}
		row := k.t[i*w : (i+1)*w]
		if f := row[j]; f != 0 {
			for c := range row {
				row[c] -= f * prow[c]
			}
		}
	}
	if f := k.d[j]; f != 0 {
		for c := range k.d {
			k.d[c] -= f * prow[c]
		}
	}
	k.basis[r] = j
}

// dualBound is Σ Cap·p + Σ Upper·max(0, value − Wᵀp) for the prices p = −(reduced costs of the
// slacks), clamped at zero: an upper bound for any p ≥ 0.
func (k *knapTableau) dualBound(value []float64, W [][]float64, capacity, upper []float64) float64 {
	p := make([]float64, k.m)
	for i := range k.m {
		p[i] = math.Max(0, -k.d[k.n+i])
	}
	bound := 0.0
	for i, c := range capacity {
		bound += math.Max(0, c) * p[i]
	}
	for j, v := range value {
		r := v
		for i := range k.m {
			r -= W[i][j] * p[i]
		}
		if r > 0 {
			bound += upper[j] * r
		}
	}
	return bound
}
