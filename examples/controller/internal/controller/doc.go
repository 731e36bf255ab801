// Package controller wires napkit's library into a Kubernetes controller: pending pods are planned by
// the provisioner and launched through a launch.Launcher, nodes are registered and initialized, and
// consolidation, drift and expiration commands are executed through the termination finalizer. A
// command's drain evicts in the order its plan lists the moves and waits on each pod's
// PodDisruptionBudget rather than run into a refusal; a refusal all the same is recorded on the
// NodeClaim and holds back the commands touching that PDB (pdbgate.go). Pending pods a plan put on
// a NodeClaim or node still coming are held there (planned.go; those it lets go are counted by
// reason in napkit_planned_pods_released_total); those a replay of kube-scheduler
// says it would strand (Config.NominatePods, by default NominatePredicted; predict.go) get that
// node as status.nominatedNodeName as it registers, its batch's nodes released together
// (batchrelease.go; their Node writes at once, batchadopt.go), so kube-scheduler binds them as
// planned (nominate.go). A disruption pass decides the passes after its deletes ahead
// (disrupt_chain.go) and, with Config.MarkUnneeded, keeps a soft taint on the nodes
// consolidation would remove but for its budgets, so kube-scheduler sends pods to the nodes that
// stay (unneeded.go).
package controller
