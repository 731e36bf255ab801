// Package snapshot turns the Kubernetes objects of a cluster (Nodes, Pods, NodeClaims, NodePools with
// their catalogues, AKSNodeClasses, PodDisruptionBudgets, DaemonSets, volumes, namespaces, and
// workloads expanded to pods) into the inputs of the planners: provisioner.Input and
// consolidation.Input. It is the one derivation of a node's lifecycle (Registered, Initialized,
// InitializedAt, LastPodEventAt, Deleting, Nominated), of bound and pending pods, and of the
// NodeClaims still in flight, used by napkit's CLI, its example controller and any autoscaler built on
// the library.
//
// Data flows one way:
//
//	manifest.Set ──Read──┐
//	  (workloads ──WorkloadPods, at most MaxPods──► pods)
//	informer caches ─────┴─► Objects ──Take(Options: Now, Memory, Strict)──► *Snapshot
//	                                                                          │
//	              Snapshot.ProvisionerInput() ──► provisioner.Solve           │
//	              Snapshot.ConsolidationInput() ──► consolidation.Decide ◄────┘
//
// The rules, each Karpenter's reading where it has one:
//   - A NodeClaim belongs to the Node with its provider ID, else the Node its status.nodeName names,
//     else the Node of its own name.
//   - Registered: the NodeClaim's Registered condition when the claim has status conditions (a
//     controller writes them); otherwise the Node does not carry karpenter.sh/unregistered.
//   - Initialized: likewise the NodeClaim's Initialized condition; otherwise the Node is Ready
//     and carries none of the booting taints (api.IsEphemeralTaint, karpenter.sh/unregistered, the
//     NodeClaim's or NodePool's startup taints). InitializedAt is when that condition (else Ready)
//     last turned true.
//   - LastPodEventAt: what the caller's Memory holds; else the NodeClaim's status.lastPodEventTime
//     (left for consolidation to read); else the latest start of a bound pod after initialization.
//   - Deleting: a deletion timestamp on the Node or its NodeClaim, the karpenter.sh/disrupted taint,
//     or Memory.Disrupting.
//   - Nominated pods: unbound pods whose status.nominatedNodeName names an existing Node (a
//     preemption, or an autoscaler's KEP-5278 nomination), not terminal, not being deleted, not a
//     DaemonSet's or mirror pod. kube-scheduler keeps their room there, so they count among that
//     node's Pods (not pending), and the node is Nominated. A nomination to a Node that no longer
//     exists is ignored, as kube-scheduler ignores it.
//   - napkit's deletion-candidate taint (api.TaintKeyDeletionCandidate) is left out of the
//     nodes: it is advice to kube-scheduler about consolidation's own plans, not a constraint.
//   - Pending pods: unbound, not terminal, not being deleted, not nominated to an existing node, not a
//     DaemonSet's or mirror pod; Options.PendingRule narrows that for a live cluster: PendingUngated
//     leaves out pods held at a scheduling gate, PendingUnschedulable waits until kube-scheduler has
//     marked them Unschedulable (Karpenter's rule).
//   - In flight: NodeClaims that are not being deleted, did not fail to launch (Launched False) and
//     whose Node has not registered, with a NodePool of the snapshot and an instance type of its
//     catalogue (the instance-type label, else the first of its requirement).
//
// What does not fit (a pod bound to a Node the objects lack, a node of a NodePool they lack, a
// NodeClaim without pool or type) is an issue, an *api.FieldError of class ErrInconsistent (which is
// bad input: it matches api.ErrInvalid): Take returns the first as an error under
// Options.Strict (manifests, where it is a mistake), and lists them all in Snapshot.Issues otherwise
// (a controller's caches, where objects arrive in any order). The package does no I/O and keeps no
// state: the same objects and options give the same inputs.
package snapshot
