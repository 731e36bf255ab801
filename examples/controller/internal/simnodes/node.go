package simnodes

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

// register creates the VM's Node as a kubelet would, in one write: the labels a kubelet may set,
// the node's taints plus its startup taints and karpenter.sh/unregistered, the instance type's
// capacity and allocatable, and Ready (kube-apiserver keeps the status given at creation). Then it
// takes the node's Lease and starts the pods already bound to it.
func (k *Kubelet) register(ctx context.Context, name string) error {
	k.mu.Lock()
	n := k.vms[name]
	k.mu.Unlock()
	if n == nil {
		return nil
	}
	node, startup, err := k.nodeObject(ctx, n.inst)
	if err != nil {
		return err
	}
	created, err := k.opts.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err): // registered before a restart of the simulation
		created, err = k.opts.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	case err == nil && len(created.Status.Conditions) == 0: // an API server may drop status on create
		created.Status = node.Status
		created, err = k.opts.Kube.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("register node %s: %w", name, err)
	}
	lease, err := k.createLease(ctx, created)
	if err != nil {
		return err
	}
	now := k.opts.Clock()
	k.mu.Lock()
	n.registered, n.renewed, n.startupTaints, n.lease, n.queued = now, now, startup, lease, false
	k.mu.Unlock()
	k.opts.Logger.Info("node registered", "node", name, "instanceType", n.inst.SKU, "zone", n.inst.Zone)
	k.queuePodsOn(name)
	return nil
}

// nodeObject is the Node the VM's kubelet registers, and the startup taints to drop later.
func (k *Kubelet) nodeObject(ctx context.Context, inst *launch.Instance) (*corev1.Node, []corev1.Taint, error) {
	it, ok := k.opts.InstanceType(inst.SKU)
	if !ok {
		return nil, nil, fmt.Errorf("VM %s: size %s is not in the catalogue", inst.Name, inst.SKU)
	}
	nc, err := k.claim(ctx, inst.NodeClaimName)
	if err != nil {
		return nil, nil, err
	}
	labels := bootstrap.KubeletLabels(nc.Labels)
	maps.Copy(labels, map[string]string{
		api.LabelHostname: inst.Name, api.LabelArch: it.SKU.Arch, api.LabelOS: api.OSLinux,
		api.LabelInstanceType: inst.SKU, api.LabelZone: inst.Zone, api.LabelRegion: k.opts.Region,
	})
	taints := append(slices.Clone(nc.Spec.Taints), nc.Spec.StartupTaints...)
	now := metav1.NewTime(k.opts.Clock())
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: inst.Name, Labels: labels},
		Spec:       corev1.NodeSpec{ProviderID: inst.ProviderID, Taints: append(taints, imagefamily.UnregisteredTaint())},
		Status: corev1.NodeStatus{
			Capacity: it.Capacity.DeepCopy(), Allocatable: it.Allocatable().DeepCopy(),
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: now, LastTransitionTime: now}},
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: k.kubeletVersion(inst.Name), Architecture: it.SKU.Arch, OperatingSystem: api.OSLinux},
		},
	}, slices.Clone(nc.Spec.StartupTaints), nil
}

// claim reads the NodeClaim the VM was launched for from the cache, or from the API when the
// cache has not seen it yet. A VM without one (an orphan awaiting garbage collection) still
// boots, with no labels or taints from it, as a real one would.
func (k *Kubelet) claim(ctx context.Context, name string) (*api.NodeClaim, error) {
	obj, ok, err := k.claims.GetStore().GetByKey(name)
	if err == nil && ok {
		return controller.FromUnstructured[api.NodeClaim](obj)
	}
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
func (k *Kubelet) finishStartup(ctx context.Context, name string) error {
	n, ok := k.registeredNode(name)
	if !ok {
		return nil
	}
	k.mu.Lock()
	startup := n.startupTaints
	k.mu.Unlock()
	if len(startup) == 0 {
		return nil
	}
	return k.updateNode(ctx, name, func(node *corev1.Node) bool {
		kept := slices.DeleteFunc(slices.Clone(node.Spec.Taints), func(t corev1.Taint) bool {
			return slices.ContainsFunc(startup, func(s corev1.Taint) bool { return s.MatchTaint(&t) })
		})
		if len(kept) == len(node.Spec.Taints) {
			return false
		}
		node.Spec.Taints = kept
		return true
	})
}

// deregister deletes the Node of a VM that is gone (the cloud node manager's job in AKS); its
// Lease goes with it (the Node owns it).
func (k *Kubelet) deregister(ctx context.Context, name string) error {
	k.mu.Lock()
	n := k.vms[name]
	k.mu.Unlock()
	if n != nil && !n.registered.IsZero() {
		err := k.opts.Kube.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete node %s: %w", name, err)
		}
		k.opts.Logger.Info("node gone with its VM", "node", name)
	}
	k.mu.Lock()
	delete(k.vms, name)
	k.mu.Unlock()
	return nil
}

// updateNode applies mutate to the cached Node and writes it; only a conflict (the cache lagging
// behind the controller's own writes) costs a fresh read. mutate returns false for no change.
func (k *Kubelet) updateNode(ctx context.Context, name string, mutate func(*corev1.Node) bool) error {
	nodes := k.opts.Kube.CoreV1().Nodes()
	var node *corev1.Node
	if obj, ok, _ := k.nodes.GetStore().GetByKey(name); ok {
		node = obj.(*corev1.Node).DeepCopy()
	}
	for attempt := 0; ; attempt++ {
		if node == nil {
			fresh, err := nodes.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("read node %s: %w", name, err)
			}
			node = fresh
		}
		if !mutate(node) {
			return nil
		}
		_, err := nodes.Update(ctx, node, metav1.UpdateOptions{})
		switch {
		case err == nil || apierrors.IsNotFound(err):
			return nil
		case !apierrors.IsConflict(err) || attempt >= 4:
			return fmt.Errorf("update node %s: %w", name, err)
		}
		node = nil
	}
}
