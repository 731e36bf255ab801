// Package lp solves the small covering linear programs the provisioner uses for its lower bound and
// its instance-type pricing:
//
//	minimise   c·x
//	subject to A x ≥ b,  x ≥ 0
//
// with few rows (one per resource, plus node-count rows) and many columns (one per instance type).
// It runs the dual simplex method on a dense tableau: the all-surplus basis is dual feasible from the
// start because every cost is non-negative, so no phase one is needed and every intermediate basis
// yields dual prices y ≥ 0 with Aᵀy ≤ c. By weak duality b·y is then a valid lower bound even if the
// method stops early, which is what makes the bound safe to report.
package lp

import (
	"errors"
	"math"
)

// ErrInfeasible is returned when no combination of columns covers the demand.
var ErrInfeasible = errors.New("lp: demand cannot be covered")

// ErrInvalid is returned for malformed input (ragged rows, negative or non-finite numbers).
var ErrInvalid = errors.New("lp: invalid problem")

// Problem is a covering LP: minimise Cost·x subject to Σ_j A[i][j]·x[j] ≥ Demand[i], x ≥ 0.
type Problem struct {
	Cost   []float64   // one per column, ≥ 0
	A      [][]float64 // one row per constraint, each len(Cost) long, entries ≥ 0
	Demand []float64   // one per row
}

// Solution is an optimal (or, after the iteration cap, a dual-feasible) basis.
type Solution struct {
	X []float64 // primal values per column (meaningful when Optimal)
	Y []float64 // dual prices per row, ≥ 0, with Aᵀy ≤ Cost
	// Bound is Demand·Y, a lower bound on every feasible Cost·x.
	Bound float64
	// Objective is Cost·X (equal to Bound when Optimal).
	Objective float64
	Optimal   bool
}

const eps = 1e-9

// Solve runs the dual simplex method on p. Rows with non-positive demand are dropped (they hold for
// any x ≥ 0) and get a zero price.
func Solve(p Problem) (Solution, error) {
	if err := p.validate(); err != nil {
		return Solution{}, err
	}
	rows := activeRows(p)
	n, m := len(p.Cost), len(rows)
	sol := Solution{X: make([]float64, n), Y: make([]float64, len(p.Demand))}
	if m == 0 {
		sol.Optimal = true
		return sol, nil
	}
	t := newTableau(p, rows)
	optimal, err := t.run(50*(m+n) + 100)
	if err != nil {
		return sol, err
	}
	t.extract(&sol, p.Demand, rows)
	sol.Optimal = optimal
	sol.Bound = safeBound(p, sol.Y)
	for j, x := range sol.X {
		sol.Objective += p.Cost[j] * x
	}
	return sol, nil
}

func (p Problem) validate() error {
	for _, c := range p.Cost {
		if c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
			return ErrInvalid
		}
	}
	if len(p.A) != len(p.Demand) {
		return ErrInvalid
	}
	for i, row := range p.A {
		if len(row) != len(p.Cost) || math.IsNaN(p.Demand[i]) || math.IsInf(p.Demand[i], 0) {
			return ErrInvalid
		}
		for _, a := range row {
			if a < 0 || math.IsNaN(a) || math.IsInf(a, 0) {
				return ErrInvalid
			}
		}
	}
	return nil
}

func activeRows(p Problem) []int {
	var rows []int
	for i, d := range p.Demand {
		if d > 0 {
			rows = append(rows, i)
		}
	}
	return rows
}

// tableau holds [−A/b | I] for the active rows (each row scaled by its demand so every right-hand
// side starts at −1), the right-hand sides and the reduced costs of all n+m columns.
type tableau struct {
	n, m  int
	cells []float64 // m rows × (n+m) columns
	rhs   []float64
	cost  []float64 // reduced costs, n+m
	basis []int
}

func newTableau(p Problem, rows []int) *tableau {
	n, m := len(p.Cost), len(rows)
	w := n + m
	t := &tableau{n: n, m: m, cells: make([]float64, m*w), rhs: make([]float64, m), cost: make([]float64, w), basis: make([]int, m)}
	copy(t.cost, p.Cost)
	for r, i := range rows {
		scale := 1 / p.Demand[i]
		row := t.cells[r*w : (r+1)*w]
		for j, a := range p.A[i] {
			row[j] = -a * scale
		}
		row[n+r] = 1
		t.rhs[r] = -1
		t.basis[r] = n + r
	}
	return t
}

// run pivots until the basis is primal feasible (optimal), or the cap is hit (false, nil).
func (t *tableau) run(maxIter int) (bool, error) {
	for range maxIter {
		r := t.leavingRow()
		if r < 0 {
			return true, nil
		}
		j := t.enteringColumn(r)
		if j < 0 {
			return false, ErrInfeasible
		}
		t.pivot(r, j)
	}
	return false, nil
}

func (t *tableau) leavingRow() int {
	best, at := -eps, -1
	for r, v := range t.rhs {
		if v < best {
			best, at = v, r
		}
	}
	return at
}

// enteringColumn runs the dual ratio test on row r; ties go to the lowest index, which with the
// most-negative leaving rule is enough to avoid cycling on these small problems in practice.
func (t *tableau) enteringColumn(r int) int {
	w := t.n + t.m
	row := t.cells[r*w : (r+1)*w]
	best, at := math.Inf(1), -1
	for j, a := range row {
		if a < -eps {
			if ratio := t.cost[j] / -a; ratio < best-1e-12 {
				best, at = ratio, j
			}
		}
	}
	return at
}

func (t *tableau) pivot(r, j int) {
	w := t.n + t.m
	prow := t.cells[r*w : (r+1)*w]
	inv := 1 / prow[j]
	for k := range prow {
		prow[k] *= inv
	}
	t.rhs[r] *= inv
	prow[j] = 1
	for i := 0; i < t.m; i++ {
		if i == r {
			continue
		}
		row := t.cells[i*w : (i+1)*w]
		if f := row[j]; f != 0 {
			for k := range row {
				row[k] -= f * prow[k]
			}
			row[j] = 0
			t.rhs[i] -= f * t.rhs[r]
		}
	}
	if f := t.cost[j]; f != 0 {
		for k := range t.cost {
			t.cost[k] -= f * prow[k]
		}
		t.cost[j] = 0
	}
	t.basis[r] = j
}

// extract reads x from the basis and y from the reduced costs of the surplus columns. Row i was
// divided by its demand, so its price is divided by the demand too.
func (t *tableau) extract(sol *Solution, demand []float64, rows []int) {
	for r, j := range t.basis {
		if j < t.n {
			sol.X[j] = max(0, t.rhs[r])
		}
	}
	for r, i := range rows {
		sol.Y[i] = max(0, t.cost[t.n+r]) / demand[i]
	}
}

// safeBound returns Demand·y after scaling y down, if rounding left it slightly infeasible, so that
// Aᵀy ≤ Cost holds exactly and weak duality makes the result a true lower bound.
func safeBound(p Problem, y []float64) float64 {
	worst := 1.0
	for j, c := range p.Cost {
		var v float64
		for i, row := range p.A {
			v += row[j] * y[i]
		}
		if v > c {
			if c <= 0 {
				return 0
			}
			worst = max(worst, v/c)
		}
	}
	var bound float64
	for i, d := range p.Demand {
		y[i] /= worst
		if d > 0 {
			bound += d * y[i]
		}
	}
	return bound
}
