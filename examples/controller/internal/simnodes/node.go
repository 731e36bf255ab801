package simnodes

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

// register creates the VM's Node as a kubelet would: the labels a kubelet may set, the node's
// taints plus its startup taints and karpenter.sh/unregistered, the instance type's capacity and
// allocatable, and Ready. It returns the startup taints, to drop later.
func (k *Kubelet) register(ctx context.Context, inst *launch.Instance) ([]corev1.Taint, error) {
	it, ok := k.opts.InstanceType(inst.SKU)
	if !ok {
		return nil, fmt.Errorf("VM %s: size %s is not in the catalogue", inst.Name, inst.SKU)
	}
	nc, err := k.claim(ctx, inst.NodeClaimName)
	if err != nil {
		return nil, err
	}
	labels := bootstrap.KubeletLabels(nc.Labels)
	maps.Copy(labels, map[string]string{
		api.LabelHostname: inst.Name, api.LabelArch: it.SKU.Arch, api.LabelOS: api.OSLinux,
		api.LabelInstanceType: inst.SKU, api.LabelZone: inst.Zone, api.LabelRegion: k.opts.Region,
	})
	taints := append(slices.Clone(nc.Spec.Taints), nc.Spec.StartupTaints...)
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: inst.Name, Labels: labels},
		Spec:       corev1.NodeSpec{ProviderID: inst.ProviderID, Taints: append(taints, imagefamily.UnregisteredTaint())},
		Status: corev1.NodeStatus{
			Capacity: it.Capacity.DeepCopy(), Allocatable: it.Allocatable().DeepCopy(),
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: metav1.NewTime(k.opts.Clock()), LastTransitionTime: metav1.NewTime(k.opts.Clock())}},
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: k.opts.KubeletVersion, Architecture: it.SKU.Arch, OperatingSystem: api.OSLinux},
		},
	}
	created, err := k.opts.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("register node %s: %w", inst.Name, err)
	}
	if len(created.Status.Conditions) == 0 { // an API server may drop status on create
		created.Status = node.Status
		if _, err := k.opts.Kube.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			return nil, fmt.Errorf("node %s status: %w", inst.Name, err)
		}
	}
	k.opts.Logger.Info("node registered", "node", inst.Name, "instanceType", inst.SKU, "zone", inst.Zone)
	return slices.Clone(nc.Spec.StartupTaints), nil
}

// claim reads the NodeClaim the VM was launched for. A VM without one (an orphan awaiting garbage
// collection) still boots, with no labels or taints from it, as a real one would.
func (k *Kubelet) claim(ctx context.Context, name string) (*api.NodeClaim, error) {
	u, err := k.opts.Dynamic.Resource(controller.NodeClaimsGVR).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return &api.NodeClaim{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("NodeClaim %s: %w", name, err)
	}
	return controller.FromUnstructured[api.NodeClaim](u)
}

// finishStartup removes the startup taints, as their owners (e.g. the Cilium agent) do once ready.
func (k *Kubelet) finishStartup(ctx context.Context, name string, startup []corev1.Taint) error {
	return k.updateNode(ctx, name, func(n *corev1.Node) {
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool {
			return slices.ContainsFunc(startup, func(s corev1.Taint) bool { return s.MatchTaint(&t) })
		})
	})
}

// deregister deletes the Node of a VM that is gone (the cloud node manager's job in AKS).
func (k *Kubelet) deregister(ctx context.Context, name string) error {
	err := k.opts.Kube.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete node %s: %w", name, err)
	}
	k.opts.Logger.Info("node gone with its VM", "node", name)
	return nil
}

func (k *Kubelet) updateNode(ctx context.Context, name string, mutate func(*corev1.Node)) error {
	nodes := k.opts.Kube.CoreV1().Nodes()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := nodes.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(n)
		_, err = nodes.Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update node %s: %w", name, err)
	}
	return nil
}
