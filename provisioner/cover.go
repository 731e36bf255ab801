package provisioner

import (
	"github.com/napkit/napkit/provisioner/internal/lp"
)

// coverColumn is an instance type as the covering LP sees it.
type coverColumn struct {
	price float64
	alloc resVec
	// counts says whether the type may serve the node-count row (it fits one of the pods that
	// must each have a node to themselves).
	counts bool
}

// coverResult holds the LP's dual prices: per resource, and per node for the count row.
type coverResult struct {
	y      []float64
	yNodes float64
	bound  float64
	ok     bool
}

// solveCover solves min Σ price·x s.t. Σ alloc·x ≥ demand and (when nodes > 0) Σ_{counts} x ≥ nodes.
// Resources no column provides are dropped (their demand cannot be the binding one for a bound on
// capacity that exists; callers only pass demand that was placed or is placeable).
func solveCover(demand resVec, nodes float64, cols []coverColumn) coverResult {
	res := coverResult{y: make([]float64, len(demand))}
	if len(cols) == 0 {
		return res
	}
	var rows []int
	for r, d := range demand {
		if d <= 0 {
			continue
		}
		for _, c := range cols {
			if c.alloc[r] > 0 {
				rows = append(rows, r)
				break
			}
		}
	}
	p := lp.Problem{Cost: make([]float64, len(cols))}
	for j, c := range cols {
		p.Cost[j] = c.price
	}
	for _, r := range rows {
		row := make([]float64, len(cols))
		for j, c := range cols {
			row[j] = float64(c.alloc[r])
		}
		p.A = append(p.A, row)
		p.Demand = append(p.Demand, float64(demand[r]))
	}
	if nodes > 0 {
		row := make([]float64, len(cols))
		for j, c := range cols {
			if c.counts {
				row[j] = 1
			}
		}
		p.A = append(p.A, row)
		p.Demand = append(p.Demand, nodes)
	}
	sol, err := lp.Solve(p)
	if err != nil {
		return res
	}
	for i, r := range rows {
		res.y[r] = sol.Y[i]
	}
	if nodes > 0 {
		res.yNodes = sol.Y[len(rows)]
	}
	res.bound, res.ok = sol.Bound, true
	return res
}
