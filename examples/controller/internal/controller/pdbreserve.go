package controller

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/snapshot"
)

// reserveDrains lowers, in a disruption pass's input, each PodDisruptionBudget's allowance by the
// evictions the drains of nodes already being disrupted still have to make: their pods not yet
// evicted (not terminating) that the PDB covers. Why: consolidation paces one pass's evictions by
// each PDB's allowance (consolidation/pdbpace.go), but commands now run on while the next pass
// decides (start), and a replace evicts nothing until its replacement has booted, so the status
// still shows the allowance that command's drain will spend. Without the reservation the next pass
// planned a second drain against the same allowance, and the two took turns at the PDB (the e2e
// TestPacedConsolidation allows one node disrupted at a time). Evicted pods are no longer
// counted: the eviction API has taken them off status.disruptionsAllowed already. The informer's
// objects are never written; a PDB that changes is copied.
func reserveDrains(in *consolidation.Input) {
	var draining []*corev1.Pod
	for i := range in.Nodes {
		n := &in.Nodes[i]
		if !nodeGoing(n) {
			continue
		}
		for _, pod := range n.Pods {
			if pod.DeletionTimestamp == nil && !snapshot.Terminal(pod) && !snapshot.MirrorPod(pod) {
				draining = append(draining, pod)
			}
		}
	}
	if len(draining) == 0 {
		return
	}
	pdbs := slices.Clone(in.PodDisruptionBudgets)
	for i, pdb := range pdbs {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			continue // consolidation reports the selector; the PDB blocks its pods anyway
		}
		n := int32(0)
		for _, pod := range draining {
			if pod.Namespace == pdb.Namespace && sel.Matches(labels.Set(pod.Labels)) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		reserved := pdb.DeepCopy()
		reserved.Status.DisruptionsAllowed = max(reserved.Status.DisruptionsAllowed-n, 0)
		pdbs[i] = reserved
	}
	in.PodDisruptionBudgets = pdbs
}

// nodeGoing reports a node of the input on its way out: marked disrupting, or with a deletion
// timestamp on its Node or NodeClaim.
func nodeGoing(n *consolidation.Node) bool {
	return n.Deleting || (n.Node != nil && n.Node.DeletionTimestamp != nil) ||
		(n.NodeClaim != nil && n.NodeClaim.DeletionTimestamp != nil)
}
