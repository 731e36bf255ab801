// Package repair decides which unhealthy nodes to replace: Karpenter's node repair with the Azure
// provider's repair policies. It is pure: the caller passes the nodes, the policies and the time,
// and executes the returned repairs (delete the NodeClaim; the provisioner launches a node for the
// pods that become pending) with an event that says why.
//
// Data flow of one Decide:
//
//	nodes ──policies──▶ unhealthy nodes (a policy's condition with its status)
//	      ──toleration──▶ waiting (not long enough) | due
//	      ──guards──▶ blocked (more than MaxUnhealthy of the NodePool, or of the cluster,
//	                  is unhealthy: the fault is likely not the nodes', replacing them would not help)
//	      ──budgets──▶ blocked (the NodePool's disruption budgets allow no more) | repairs
//
// Karpenter core repairs regardless of disruption budgets; napkit also charges repairs to them
// (consolidation.DisruptionsAllowed), so a repair never takes more nodes at once than the NodePool
// allows for any disruption.
package repair
