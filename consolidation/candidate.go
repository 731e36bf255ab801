package consolidation

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// candidate is a node with everything the methods need to rank and judge it, worked out once per
// pass by collect.
type candidate struct {
	// index is the node's position in Input.Nodes.
	index int
	name  string
	node  *Node
	pool  *api.NodePool
	// class is the pool's AKSNodeClass (nil when the pool names none the input holds).
	class *api.AKSNodeClass
	// instanceType is the catalogue entry of the node's type (nil when the catalogue lacks it).
	instanceType *instancetype.InstanceType
	zone         string
	capacityType string
	// price is the hourly price of the node's offering (instance type, zone, capacity type).
	price float64
	// pods are the pods that would have to move (not DaemonSet, mirror or terminal pods).
	pods []*corev1.Pod
	// disruptionCost is 1 + Σ max(0, EvictionCost) over pods.
	disruptionCost float64
	// empty is Karpenter's "empty": disruptionCost ≤ 1.
	empty bool
	// consolidatable is true once consolidateAfter has elapsed since the last pod event.
	consolidatable bool
	// consolidatableAt is when consolidatable becomes (or became) true.
	consolidatableAt time.Time
	// blocker, when not empty, is why graceful methods (emptiness, consolidation) may not touch the
	// node: node or pod do-not-disrupt, a PDB allowing 0 disruptions, a pod under two PDBs.
	blocker string
	// charges are the evictions draining the node asks of each PDB, sorted by PDB.
	charges []pdbCharge
	// drift, when not empty, names the drift kind (the Drift* constants).
	drift string
	// driftChanged says what changed, one line per change (for Command.Changed).
	driftChanged []string
	// expired is set once the NodeClaim outlived expireAfter.
	expired bool
}
