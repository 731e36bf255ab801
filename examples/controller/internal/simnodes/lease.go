package simnodes

import (
	"context"
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The kubelet's heartbeat is its Lease in kube-node-lease, owned by its Node and renewed every
// 10 s; the Node's status is posted only when it changes (or every 5 minutes), so the Lease is
// what keeps a quiet node alive at the cost of one small write per node per interval.

// nodeLeaseNamespace is where kubelets keep their Leases.
const nodeLeaseNamespace = corev1.NamespaceNodeLease

// createLease takes the node's Lease and returns it.
func (k *Kubelet) createLease(ctx context.Context, node *corev1.Node) (*coordinationv1.Lease, error) {
	now := metav1.NewMicroTime(k.opts.Clock())
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: node.Name, Namespace: nodeLeaseNamespace,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &node.Name, LeaseDurationSeconds: ptr(int32(leaseDuration.Seconds())),
			RenewTime: &now},
	}
	leases := k.opts.Kube.CoordinationV1().Leases(nodeLeaseNamespace)
	created, err := leases.Create(ctx, lease, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) { // held before a restart of the simulation: renewed next
		created, err = leases.Get(ctx, node.Name, metav1.GetOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("node %s lease: %w", node.Name, err)
	}
	return created, nil
}

// renewLease moves the Lease's renew time to now with one update from the copy last written, as
// the kubelet does; only a conflict costs a fresh read.
func (k *Kubelet) renewLease(ctx context.Context, name string) error {
	n, ok := k.registeredNode(name)
	if !ok {
		return nil
	}
	leases := k.opts.Kube.CoordinationV1().Leases(nodeLeaseNamespace)
	k.mu.Lock()
	lease := n.lease.DeepCopy()
	k.mu.Unlock()
	for attempt := 0; ; attempt++ {
		if lease == nil {
			fresh, err := leases.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil // the node went meanwhile
			}
			if err != nil {
				return fmt.Errorf("read lease %s: %w", name, err)
			}
			lease = fresh
		}
		now := metav1.NewMicroTime(k.opts.Clock())
		lease.Spec.RenewTime = &now
		written, err := leases.Update(ctx, lease, metav1.UpdateOptions{})
		switch {
		case err == nil:
			k.setLease(n, written)
			return nil
		case apierrors.IsNotFound(err):
			return nil
		case !apierrors.IsConflict(err) || attempt >= 4:
			return fmt.Errorf("renew lease %s: %w", name, err)
		}
		lease = nil
	}
}

func (k *Kubelet) setLease(n *simNode, lease *coordinationv1.Lease) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n.lease = lease
}

func ptr[T any](v T) *T { return &v }
