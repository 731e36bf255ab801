// Package consolidation decides which nodes to remove or replace with cheaper ones, and which to
// leave alone and why: Karpenter's disruption methods (emptiness, drift, multi-node and single-node
// consolidation, expiration) as one pure function, [Decide], over a cluster snapshot. It returns
// commands; executing them (taint, launch the replacement, drain, delete) is the caller's job.
//
// Every placement question is answered by the provisioner ([provisioner.Simulator]); this package
// never schedules a pod itself.
package consolidation
