package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/napkit/napkit/api"
)

// Every write reads the object fresh and retries on conflict: several reconcilers (and, in the
// simulation, the simulated kubelet) change the same Nodes and NodeClaims, and the cache may lag.

// updateClaim applies mutate to the claim's metadata and spec and writes them; mutate returns
// false when there is nothing to write.
func (c *Controller) updateClaim(ctx context.Context, name string, mutate func(*api.NodeClaim) bool) error {
	return c.writeClaim(ctx, name, mutate, false)
}

// updateClaimStatus does the same for the status subresource.
func (c *Controller) updateClaimStatus(ctx context.Context, name string, mutate func(*api.NodeClaim) bool) error {
	return c.writeClaim(ctx, name, mutate, true)
}

func (c *Controller) writeClaim(ctx context.Context, name string, mutate func(*api.NodeClaim) bool, status bool) error {
	res := c.cfg.Dynamic.Resource(NodeClaimsGVR)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := res.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		nc, err := FromUnstructured[api.NodeClaim](u)
		if err != nil {
			return err
		}
		if !mutate(nc) {
			return nil
		}
		claimTypeMeta(nc)
		out, err := ToUnstructured(nc)
		if err != nil {
			return err
		}
		if status {
			_, err = res.UpdateStatus(ctx, out, metav1.UpdateOptions{})
		} else {
			_, err = res.Update(ctx, out, metav1.UpdateOptions{})
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("update NodeClaim %s: %w", name, err)
	}
	return nil
}

// updateNode applies mutate to the Node and writes it; mutate returns false for no change.
func (c *Controller) updateNode(ctx context.Context, name string, mutate func(*corev1.Node) bool) error {
	nodes := c.cfg.Kube.CoreV1().Nodes()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		node, err := nodes.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !mutate(node) {
			return nil
		}
		_, err = nodes.Update(ctx, node, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("update Node %s: %w", name, err)
	}
	return nil
}

// removeFinalizer drops f from the list; it reports whether it was there.
func removeFinalizer(obj metav1.Object, f string) bool {
	var kept []string
	for _, x := range obj.GetFinalizers() {
		if x != f {
			kept = append(kept, x)
		}
	}
	if len(kept) == len(obj.GetFinalizers()) {
		return false
	}
	obj.SetFinalizers(kept)
	return true
}

// addFinalizer adds f unless present; it reports whether it added it.
func addFinalizer(obj metav1.Object, f string) bool {
	if hasFinalizer(obj, f) {
		return false
	}
	obj.SetFinalizers(append(obj.GetFinalizers(), f))
	return true
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
