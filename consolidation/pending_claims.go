package consolidation

import "github.com/napkit/napkit/provisioner"

// pendingNeedClaims reports whether the simulation opened a NodeClaim for pending pods alone (no
// moved pod on it): capacity the provisioner is about to create. Karpenter's consolidation then
// proposes no delete, since its simulation of the same question returns new NodeClaims
// (kubernetes-sigs/karpenter pkg/controllers/disruption/consolidation.go, computeConsolidation:
// a delete needs len(results.NewNodeClaims) == 0; pending pods that fit nowhere are ignored,
// AllNonPendingPodsScheduled). Karpenter may instead propose a replace whose one new NodeClaim
// holds those pods; napkit leaves them to provisioning and proposes nothing. During a scale-up
// this keeps consolidation from repacking the nodes pods are still arriving at while the pods
// kube-scheduler stranded wait for their NodeClaims (docs/benchmarks.md, issue 18, ninth session).
func (p *pass) pendingNeedClaims(plan *provisioner.Plan, o *outcome) bool {
	if len(p.pending) == 0 {
		return false
	}
	for _, nc := range plan.NodeClaims {
		moved, pending := false, false
		for _, pod := range nc.Pods {
			_, isMoved := o.source[pod]
			moved = moved || isMoved
			pending = pending || p.pending[pod]
		}
		if pending && !moved {
			return true
		}
	}
	return false
}
