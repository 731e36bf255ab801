package lp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestSolveTwoResources(t *testing.T) {
	// Column 0 is cheap CPU, column 1 cheap memory, column 2 balanced but dear.
	p := Problem{
		Cost:   []float64{1, 1, 3},
		A:      [][]float64{{4, 1, 4}, {1, 4, 4}},
		Demand: []float64{10, 10},
	}
	sol, err := Solve(p)
	if err != nil {
		t.Fatal(err)
	}
	if !sol.Optimal || math.Abs(sol.Objective-4) > 1e-9 || math.Abs(sol.Bound-4) > 1e-9 {
		t.Fatalf("got %+v, want objective and bound 4", sol)
	}
}

func TestSolveInfeasible(t *testing.T) {
	_, err := Solve(Problem{Cost: []float64{1}, A: [][]float64{{1}, {0}}, Demand: []float64{1, 1}})
	if !errors.Is(err, ErrInfeasible) {
		t.Fatalf("got %v, want ErrInfeasible", err)
	}
}

func TestSolveInvalid(t *testing.T) {
	for _, p := range []Problem{
		{Cost: []float64{-1}, A: [][]float64{{1}}, Demand: []float64{1}},
		{Cost: []float64{1}, A: [][]float64{{1, 2}}, Demand: []float64{1}},
		{Cost: []float64{1}, A: [][]float64{{math.NaN()}}, Demand: []float64{1}},
	} {
		if _, err := Solve(p); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: got %v, want ErrInvalid", p, err)
		}
	}
}

// TestSolveRandom checks strong duality and feasibility on random covering problems.
func TestSolveRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 500 {
		m, n := 1+rng.IntN(5), 1+rng.IntN(60)
		p := Problem{Cost: make([]float64, n), A: make([][]float64, m), Demand: make([]float64, m)}
		for j := range n {
			p.Cost[j] = rng.Float64() * 10
		}
		for i := range m {
			p.A[i] = make([]float64, n)
			for j := range n {
				p.A[i][j] = rng.Float64() * 100
			}
			p.Demand[i] = rng.Float64() * 1000
		}
		sol, err := Solve(p)
		if err != nil {
			t.Fatalf("iter %d: %v", iter, err)
		}
		if !sol.Optimal {
			t.Fatalf("iter %d: not optimal", iter)
		}
		for i, row := range p.A {
			var cover float64
			for j, a := range row {
				cover += a * sol.X[j]
			}
			if cover < p.Demand[i]*(1-1e-7) {
				t.Fatalf("iter %d: row %d covered %g < %g", iter, i, cover, p.Demand[i])
			}
		}
		if math.Abs(sol.Objective-sol.Bound) > 1e-6*max(1, sol.Objective) {
			t.Fatalf("iter %d: objective %g bound %g", iter, sol.Objective, sol.Bound)
		}
	}
}

func TestKnapsackRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 300 {
		m, n := 1+rng.IntN(4), 1+rng.IntN(40)
		value, capacity, upper := make([]float64, n), make([]float64, m), make([]float64, n)
		W := make([][]float64, m)
		for j := range n {
			value[j] = rng.Float64()
			upper[j] = float64(rng.IntN(5))
		}
		for i := range m {
			W[i] = make([]float64, n)
			for j := range n {
				W[i][j] = rng.Float64()
			}
			capacity[i] = rng.Float64() * 10
		}
		x, bound := Knapsack(value, W, capacity, upper)
		var got float64
		for j := range n {
			if x[j] < -1e-9 || x[j] > upper[j]+1e-9 {
				t.Fatalf("iter %d: x[%d]=%g outside [0,%g]", iter, j, x[j], upper[j])
			}
			got += value[j] * x[j]
		}
		for i := range m {
			var use float64
			for j := range n {
				use += W[i][j] * x[j]
			}
			if use > capacity[i]+1e-7 {
				t.Fatalf("iter %d: row %d uses %g > %g", iter, i, use, capacity[i])
			}
		}
		// Cross-check with the covering dual solved by Solve.
		p := Problem{Cost: make([]float64, m+n)}
		for i := range m {
			p.Cost[i] = capacity[i]
		}
		for j := range n {
			p.Cost[m+j] = upper[j]
			row := make([]float64, m+n)
			for i := range m {
				row[i] = W[i][j]
			}
			row[m+j] = 1
			p.A = append(p.A, row)
			p.Demand = append(p.Demand, value[j])
		}
		sol, err := Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-sol.Objective) > 1e-6*max(1, got) || bound < got-1e-9 || bound > sol.Objective+1e-6*max(1, got) {
			t.Fatalf("iter %d: primal %g, bound %g, LP %g", iter, got, bound, sol.Objective)
		}
	}
}
