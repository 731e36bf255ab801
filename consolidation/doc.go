// Package consolidation decides which nodes to remove or replace with cheaper ones, and which to
// leave alone and why: Karpenter's disruption methods (emptiness, drift, multi-node and single-node
// consolidation, expiration) as one pure function, [Decide], over a cluster snapshot. It returns
// commands; executing them (taint, launch the replacement, drain, delete) is the caller's job.
//
// Every placement question is answered by the provisioner ([provisioner.Simulator]); this package
// never schedules a pod itself.
//
// How data flows through one [Decide]:
//
//   - collect (collect.go) turns each Node into a candidate: its pool, instance type, price,
//     disruption cost (cost.go), blockers (do-not-disrupt, PDBs: blocking.go), the evictions its
//     drain asks of each PDB (each PDB's allowance from PDBAllowance, pdballowance.go), drift kind
//     and what changed (drift.go; the AKSNodeClass static hash in drift_nodeclass.go, kubelet
//     identity and cluster network in drift_cluster.go), expiry (expiration.go) and
//     consolidateAfter; nodes that cannot be candidates go to Plan.Blocked with the reason.
//   - newBudgets (budgets.go) reads each NodePool's budgets at Input.Now, per reason.
//   - newPass (pass.go) compiles one provisioner.Simulator over the whole snapshot; every later
//     question ("where would these nodes' pods go?") is an Evacuate on it, quick (first-fit
//     decreasing) while searching.
//   - The methods run in order, each committing commands the earlier ones leave room for:
//     expiration (expire_cmd.go), emptiness (emptiness.go), drift (drift_cmd.go), then
//     consolidation (consolidate.go: multi-node growth in multi.go, Karpenter's prefix merge,
//     single-node in single.go), with the replacement price rules in replace.go, the Balanced
//     score in balanced.go and a capacity bound that skips hopeless simulations (bound.go).
//     Karpenter's own command is the floor of every pass (karpenter.go).
//   - Every method asks the pass's PDB ledger (pdbpace.go) before it commits: the evictions of all
//     the pass's commands stay within each PDB's allowance; a command that would overdraw is
//     split off a multi-node set, or deferred (Plan.Deferred).
//   - commit (commit.go) charges the budgets and the PDB ledger, names replacements and records
//     the moves in the order the simulation placed them; plan (decide.go) sorts the commands and
//     sums the figures.
//
// [Apply] plays a Plan on the snapshot (removed nodes gone, moved pods bound where they went,
// replacements present), so a caller can decide again on the result, as the tests that run the
// decision to a fixed point do.
//
// An Input that cannot be decided on is an *api.FieldError of class ErrInvalidInput naming the Go
// path into Input ("Nodes[3].Node.metadata.name") and the value; a NodePool budget that cannot be
// evaluated is one of class ErrBudget, reported as the Blocked reason of the pool's nodes (it allows
// no disruption). Both classes match api.ErrInvalid.
package consolidation
