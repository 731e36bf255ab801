package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

// Every write starts from the informer's copy, as a controller-runtime client does: one request
// per write instead of a read and a write. Several reconcilers (and, in the simulation, the
// simulated kubelet) change the same Nodes and NodeClaims and the cache may lag, so a conflict
// reads the object fresh and applies the change again (mutate must be safe to repeat). A mutate
// that finds nothing to change on a stale copy writes nothing: the event that makes the cache
// current queues the object again.

// maxWriteAttempts bounds the fresh reads after conflicts (client-go's retry.DefaultRetry: 5).
const maxWriteAttempts = 5

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
	nc := c.claim(name) // decoded: a copy of the cache's object
	err := writeWithRetry(func() error {
		if nc == nil {
			u, err := res.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if nc, err = FromUnstructured[api.NodeClaim](u); err != nil {
				return err
			}
		}
		if !mutate(nc) {
			return nil
		}
		claimTypeMeta(nc)
		out, err := ToUnstructured(nc)
		if err != nil {
			return err
		}
		nc = nil // a retry reads fresh
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
	var node *corev1.Node
	if cached := c.node(name); cached != nil {
		node = cached.DeepCopy()
	}
	err := writeWithRetry(func() error {
		if node == nil {
			fresh, err := nodes.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			node = fresh
		}
		if !mutate(node) {
			return nil
		}
		out := node
		node = nil // a retry reads fresh
		_, err := nodes.Update(ctx, out, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("update Node %s: %w", name, err)
	}
	return nil
}

// writeWithRetry runs write until it succeeds, fails other than by a conflict, or has run
// maxWriteAttempts times. No backoff: a conflict is answered by a fresh read, not by waiting.
func writeWithRetry(write func() error) error {
	var err error
	for range maxWriteAttempts {
		if err = write(); !apierrors.IsConflict(err) {
			return err
		}
	}
	return err
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
