package consolidation

import "k8s.io/apimachinery/pkg/labels"

// reserveDrains lowers each PDB's allowance by the evictions the drains of nodes already on their
// way out (isDeleting: a command in progress, or a deletion timestamp) still have to make: their
// pods a drain would evict and charge (charged), not yet terminating. Why: the pass paces its own
// evictions by each PDB's allowance (pdbpace.go), but a node that is being drained spends that
// allowance too, and the status does not show it until the evictions happen: a replace evicts
// nothing until its replacement has booted, and the controller decides its next pass meanwhile
// (its commands run on, as Karpenter's orchestration queue does). Without the reservation that
// pass planned a second drain against the same allowance, and the two took turns at the PDB.
// Deleting nodes are never candidates, so their pods are charged here only.
func (ix pdbIndex) reserveDrains(in *Input) {
	for i := range in.Nodes {
		n := &in.Nodes[i]
		if !isDeleting(n) {
			continue
		}
		for _, pod := range n.Pods {
			if pod == nil || pod.DeletionTimestamp != nil {
				continue
			}
			for j := range ix[pod.Namespace] {
				e := &ix[pod.Namespace][j]
				if e.invalid == nil && e.selector.Matches(labels.Set(pod.Labels)) && charged(pod, *e) {
					e.allowed = max(e.allowed-1, 0)
				}
			}
		}
	}
}
