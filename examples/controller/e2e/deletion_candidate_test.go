//go:build e2e

package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

// TestSchedulerAvoidsDeletionCandidate records what --mark-unneeded-nodes relies on in the real
// kube-scheduler (v1.37.2): its default profile scores TaintToleration at weight 3 against
// NodeResourcesFit's LeastAllocated and BalancedAllocation at 1 each
// (pkg/scheduler/apis/config/v1/default_plugins.go), so a PreferNoSchedule taint outweighs the
// emptiest node, which LeastAllocated prefers; and it stays a preference: a pod that fits only on
// the tainted node still goes there.
func TestSchedulerAvoidsDeletionCandidate(t *testing.T) {
	c := startCluster(t, "apiserver,scheduler")
	kube := c.kube
	createNode(t, kube, "node-empty", "32", nil)
	createNode(t, kube, "node-small", "4", nil)

	createPod(t, kube, probePod("before", "1", nil, false))
	waitUntil(t, 30*time.Second, "an untainted cluster: LeastAllocated picks the empty 32-core node", boundTo(kube, "before", "node-empty"))

	node, err := kube.CoreV1().Nodes().Get(t.Context(), "node-empty", metav1.GetOptions{})
	require.NoError(t, err)
	node.Spec.Taints = append(node.Spec.Taints, api.DeletionCandidateTaint())
	_, err = kube.CoreV1().Nodes().Update(t.Context(), node, metav1.UpdateOptions{})
	require.NoError(t, err, "marking node-empty a deletion candidate")

	createPod(t, kube, probePod("after", "1", nil, false))
	waitUntil(t, 30*time.Second, "the marked node avoided", boundTo(kube, "after", "node-small"))
	createPod(t, kube, probePod("large", "8", nil, false))
	waitUntil(t, 30*time.Second, "a pod that fits only there still goes to the marked node", boundTo(kube, "large", "node-empty"))
}
