// Package provisioner plans node capacity for pending pods: which existing nodes and in-flight
// NodeClaims take which pods, which NodeClaims to create (instance type, offering, launch list),
// why every other pod cannot run, the plan's price and a lower bound on the price of any plan that
// places the same pods. It is Karpenter's scheduling simulation re-done: the same Kubernetes rules,
// far faster, packed by a fleet-wide LP instead of greedy first fit, and explained.
//
// [Solve] is the only entry point: a pure function of its [Input] (no I/O, no globals; the clock is
// read only for [Stats.SolveMillis] and the improvement budget).
//
// Data flows one way:
//
//	Input ──compile (engine.go)──► problem: immutable once built, shared by every run
//	  pods ─────────── requests.go, podclass.go, classcompile.go: classes of interchangeable pods,
//	                   their node requirements (reqset.go), topology groups (topology.go) and
//	                   Karpenter's relaxation variants (relax.go)
//	  NodePools ────── pool.go, catalog.go, compat.go: each pool's launchable (type, offering) pairs
//	                   as bitsets; requirements become masks; DaemonSet overhead per type
//	                   (daemonsets.go); limits and minValues
//	  nodes, claims ── bins.go: bins with fixed labels and room, and the pods already there
//	       │
//	problem.newEngine ── a run: the problem plus a fresh state (state.go) copied from the
//	       │             compiled start: bins, topology counts, pool usage, class queues, placements
//	       ▼
//	pack (pack.go) ── guide.go, cg.go, knapsack.go, fleet.go: column generation over pod shapes
//	       │          plans the cheapest fractional fleet; its patterns, rounded down, are opened
//	       │          as empty NodeClaims with per-shape quotas
//	       │          place.go, zones.go, capacity.go, commit.go: constrained pods, largest first,
//	       │          go to their planned NodeClaims, else first fit (fittree.go) over existing
//	       │          nodes, in-flight claims and open NodeClaims, else a new NodeClaim
//	       │          (target.go) in the first pool by weight; preferences per policy
//	       │          fill.go: free pods fill the room left, then leftovers by column generation
//	       ▼
//	improve (improve.go, remove.go) ── evacuate and merge under-filled NodeClaims within the
//	       │                            time budget
//	       ▼
//	finalize (finalize.go) ── cheapest type that fits each NodeClaim, offering, launch list
//	       ▼
//	Plan (output.go, explain.go, bound.go, cgbound.go)
//
// A second run over the same problem, from its own fresh state, is a plain first-fit-decreasing
// baseline (Karpenter's algorithm, with NodeClaims that grow while any type fits) and Solve returns
// whichever plan places more pods, then costs less. internal/lp holds the LP solvers.
// docs/provisioner.md describes the algorithm, the bound and the policies.
//
// Input the planner cannot use is an error: an *api.FieldError of class ErrInvalidInput naming
// the object ("Pod default/web", "NodePool general-purpose", "Options") and the field. A pod that
// cannot be placed is not an error but a Plan.Unschedulable entry with its reason.
package provisioner
