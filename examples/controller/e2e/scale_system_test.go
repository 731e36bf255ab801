//go:build e2e && scale

package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

// The scale suite's cluster has a system node, as every AKS cluster does: Node Auto Provisioning
// runs beside a system node pool (the cluster's add-ons, and napkit's controller itself, run
// there), never on an empty cluster. The node is tainted CriticalAddonsOnly=true:NoSchedule, as
// AKS documents for a dedicated system pool, so the workload never lands on it.
//
// Why it matters: with no node at all kube-scheduler rejects a pod without any plugin's verdict
// ("no nodes available"), and such a pod goes back to the queue after its backoff, not to wait for
// a cluster event (determineSchedulingHintForInFlightPod in
// pkg/scheduler/backend/queue/scheduling_queue.go, v1.37.2). So while the first VMs are created
// every pending pod is retried every 1-10 s, each retry a status patch and an event on
// kube-scheduler's rate-limited clients: 1,000 pods waiting a 30 s create made 6.4 attempts
// each (5,023 BackoffComplete queue entries), which queued the bindings behind them. With a
// node that rejects them (TaintToleration), pods wait for the nodes napkit adds.
const (
	systemNodeName   = "aks-system-00000000-vmss000000"
	systemNodeRenew  = 10 * time.Second
	systemNodeSKU    = "Standard_D4ds_v5"
	systemNodeLease  = "kube-node-lease"
	systemModeLabel  = api.LabelAKSMode
	systemModeValue  = "system"
	criticalAddonKey = "CriticalAddonsOnly"
)

// notSystemNode is the watcher's node selector: the suite counts, prices and checks napkit's
// nodes, not the system node (the suite's NodePool sets no kubernetes.azure.com/mode=system).
const notSystemNode = systemModeLabel + "!=" + systemModeValue

// registerSystemNode creates the system node with a Lease it renews until the test ends, so that
// kube-controller-manager keeps it Ready.
func registerSystemNode(t *testing.T, c *cluster) {
	t.Helper()
	ctx := t.Context()
	node, err := c.kube.CoreV1().Nodes().Create(ctx, systemNode(time.Now()), metav1.CreateOptions{})
	require.NoError(t, err, "system node")
	leases := c.kube.CoordinationV1().Leases(systemNodeLease)
	now := metav1.NewMicroTime(time.Now())
	lease, err := leases.Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: node.Name, Namespace: systemNodeLease,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &node.Name, LeaseDurationSeconds: ptrTo(int32(40)), RenewTime: &now},
	}, metav1.CreateOptions{})
	require.NoError(t, err, "system node's lease")
	go renewSystemLease(ctx, c, lease)
}

// renewSystemLease moves the Lease's renew time forward every systemNodeRenew until ctx ends.
func renewSystemLease(ctx context.Context, c *cluster, lease *coordinationv1.Lease) {
	tick := time.NewTicker(systemNodeRenew)
	defer tick.Stop()
	leases := c.kube.CoordinationV1().Leases(systemNodeLease)
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			fresh, err := leases.Get(ctx, lease.Name, metav1.GetOptions{})
			if err != nil {
				continue // the next tick tries again; a missed renewal is 30 s from mattering
			}
			renewed := metav1.NewMicroTime(now)
			fresh.Spec.RenewTime = &renewed
			_, _ = leases.Update(ctx, fresh, metav1.UpdateOptions{})
		}
	}
}

// systemNode is a 4-core system node in zone 1, Ready, tainted for critical add-ons only.
func systemNode(now time.Time) *corev1.Node {
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110")}
	allocatable := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3860m"),
		corev1.ResourceMemory: resource.MustParse("12Gi"), corev1.ResourcePods: resource.MustParse("110")}
	heartbeat := metav1.NewTime(now)
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: systemNodeName, Labels: map[string]string{
			systemModeLabel: systemModeValue, "kubernetes.azure.com/agentpool": "system",
			api.LabelHostname: systemNodeName, api.LabelInstanceType: systemNodeSKU, api.LabelOS: api.OSLinux,
			api.LabelArch: "amd64", api.LabelZone: "eastus-1", api.LabelRegion: "eastus"}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: criticalAddonKey, Value: "true", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: allocatable,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: heartbeat, LastTransitionTime: heartbeat}}},
	}
}
