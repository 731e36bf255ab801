package simnodes

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/launch"
)

// vmList is a Launcher that only lists: the tests add and remove its VMs.
type vmList struct {
	launch.Launcher
	mu  sync.Mutex
	vms []*launch.Instance
}

func (l *vmList) List(context.Context) ([]*launch.Instance, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.vms), nil
}

func (l *vmList) set(vms ...*launch.Instance) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.vms = vms
}

// TestKubeletLifecycle follows one VM through the simulated kubelet on client-go's fakes:
// registration with the NodeClaim's taints, startup taints dropped, Lease renewed, a bound pod
// started, and the Node deleted with its VM.
func TestKubeletLifecycle(t *testing.T) {
	const sku, nodeName = "Standard_D2s_v5", "aks-pool-1"
	startup := corev1.Taint{Key: "node.cilium.io/agent-not-ready", Value: "true", Effect: corev1.TaintEffectNoExecute}
	claim := &api.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "pool-1", Labels: map[string]string{api.LabelNodePool: "pool"}},
		Spec: api.NodeClaimSpec{StartupTaints: []corev1.Taint{startup}}}
	claim.APIVersion, claim.Kind = api.KarpenterVersion, api.KindNodeClaim
	u, err := controller.ToUnstructured(claim)
	require.NoError(t, err)
	kube := kubefake.NewClientset()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), controller.ListKinds(), u)
	cat := eastusCatalogue(t)
	vms := &vmList{}
	vms.set(&launch.Instance{Name: nodeName, ProviderID: "azure:///vm/" + nodeName, SKU: sku, Zone: "eastus-1",
		CapacityType: api.CapacityTypeOnDemand, NodeClaimName: "pool-1", State: launch.StateSucceeded})
	k, err := New(Options{Kube: kube, Dynamic: dyn, Launcher: vms, InstanceType: cat.Find, Region: "eastus",
		BootDelay: 50 * time.Millisecond, StartupDelay: 50 * time.Millisecond, Poll: 10 * time.Millisecond,
		LeaseRenewInterval: 50 * time.Millisecond, Workers: 4})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- k.Run(ctx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()

	node := eventually(t, "the node registered with its startup taints gone", func() (*corev1.Node, bool) {
		n, err := kube.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		return n, err == nil && !slices.ContainsFunc(n.Spec.Taints, func(x corev1.Taint) bool { return x.MatchTaint(&startup) })
	})
	assert.Equal(t, sku, node.Labels[api.LabelInstanceType])
	assert.Equal(t, "eastus-1", node.Labels[api.LabelZone])
	assert.True(t, slices.ContainsFunc(node.Spec.Taints, func(x corev1.Taint) bool { return x.Key == api.TaintKeyUnregistered }),
		"karpenter.sh/unregistered stays until the controller registers the node")
	want, _ := cat.Find(sku)
	assert.True(t, want.Capacity.Cpu().Equal(node.Status.Capacity[corev1.ResourceCPU]), "capacity from the catalogue")

	first := eventually(t, "the node's Lease", func() (time.Time, bool) {
		l, err := kube.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, nodeName, metav1.GetOptions{})
		return leaseRenewed(l), err == nil
	})
	eventually(t, "the Lease renewed", func() (bool, bool) {
		l, err := kube.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, nodeName, metav1.GetOptions{})
		return true, err == nil && leaseRenewed(l).After(first)
	})

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p"}, Spec: corev1.PodSpec{NodeName: nodeName},
		Status: corev1.PodStatus{Phase: corev1.PodPending}}
	_, err = kube.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err)
	eventually(t, "the bound pod Running", func() (bool, bool) {
		p, err := kube.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
		return true, err == nil && p.Status.Phase == corev1.PodRunning
	})

	vms.set()
	eventually(t, "the node deleted with its VM", func() (bool, bool) {
		_, err := kube.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		return true, err != nil
	})
}

func leaseRenewed(l *coordinationv1.Lease) time.Time {
	if l == nil || l.Spec.RenewTime == nil {
		return time.Time{}
	}
	return l.Spec.RenewTime.Time
}

// eventually polls get until it reports ok (for 10 s at most) and returns its last value.
func eventually[T any](t *testing.T, what string, get func() (T, bool)) T {
	t.Helper()
	var last T
	require.Eventually(t, func() bool {
		v, ok := get()
		last = v
		return ok
	}, 10*time.Second, 10*time.Millisecond, what)
	return last
}
