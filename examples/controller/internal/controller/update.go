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
// that finds nothing to change on the cached copy is asked again on a fresh read: the copy may
// predate the very change it would undo (a condition set a moment ago), and a skipped write would
// never be retried.

// maxWriteAttempts bounds the fresh reads after conflicts (client-go's retry.DefaultRetry: 5).
const maxWriteAttempts = 5

// updateClaim applies mutate to the claim's metadata and spec and writes them; mutate returns
// false when there is nothing to write.
func (c *Controller) updateClaim(ctx context.Context, name string, mutate func(*api.NodeClaim) bool) error {
	_, err := c.writeClaim(ctx, name, nil, mutate, false)
	return err
}

// updateClaimStatus does the same for the status subresource.
func (c *Controller) updateClaimStatus(ctx context.Context, name string, mutate func(*api.NodeClaim) bool) error {
	_, err := c.writeClaim(ctx, name, nil, mutate, true)
	return err
}

// writeClaim writes the claim (its status subresource if status) from start, else from the cached
// copy, and returns what the API server stored (nil when nothing changed). A caller writing the
// same claim twice in a row passes the first write's result as the second's start: the informer
// has not seen the first write yet, and its stale copy would cost a conflict, a read and a second
// write (about one wasted write per launch, docs/benchmarks.md).
func (c *Controller) writeClaim(ctx context.Context, name string, start *api.NodeClaim, mutate func(*api.NodeClaim) bool, status bool) (*api.NodeClaim, error) {
	res := c.cfg.Dynamic.Resource(NodeClaimsGVR)
	read := func() (*api.NodeClaim, error) {
		u, err := res.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return FromUnstructured[api.NodeClaim](u)
	}
	var written *api.NodeClaim
	put := func(nc *api.NodeClaim) error {
		claimTypeMeta(nc)
		out, err := ToUnstructured(nc)
		if err != nil {
			return err
		}
		if status {
			out, err = res.UpdateStatus(ctx, out, metav1.UpdateOptions{})
		} else {
			out, err = res.Update(ctx, out, metav1.UpdateOptions{})
		}
		if err != nil {
			return err
		}
		written, err = FromUnstructured[api.NodeClaim](out)
		return err
	}
	if start == nil {
		start = c.claim(name) // c.claim decodes the cached object: a copy, safe to change
	}
	if err := writeFromCache(start, read, mutate, put); err != nil {
		return nil, fmt.Errorf("update NodeClaim %s: %w", name, err)
	}
	return written, nil
}

// updateNode applies mutate to the Node and writes it; mutate returns false for no change.
func (c *Controller) updateNode(ctx context.Context, name string, mutate func(*corev1.Node) bool) error {
	nodes := c.cfg.Kube.CoreV1().Nodes()
	var cached *corev1.Node
	if node := c.node(name); node != nil {
		cached = node.DeepCopy()
	}
	read := func() (*corev1.Node, error) { return nodes.Get(ctx, name, metav1.GetOptions{}) }
	put := func(node *corev1.Node) error {
		_, err := nodes.Update(ctx, node, metav1.UpdateOptions{})
		return err
	}
	if err := writeFromCache(cached, read, mutate, put); err != nil {
		return fmt.Errorf("update Node %s: %w", name, err)
	}
	return nil
}

// writeFromCache applies mutate to cached (nil: not in the cache) and puts the result. A conflict,
// or a mutate with nothing to change on the cached copy, reads the object fresh and tries again,
// at most maxWriteAttempts times; no backoff, since a fresh read, not waiting, answers a conflict.
func writeFromCache[T any](cached *T, read func() (*T, error), mutate func(*T) bool, put func(*T) error) error {
	obj, fromCache := cached, cached != nil
	for attempt := 1; ; attempt++ {
		if obj == nil {
			fresh, err := read()
			if err != nil {
				return err
			}
			obj, fromCache = fresh, false
		}
		if !mutate(obj) {
			if fromCache {
				obj = nil
				continue
			}
			return nil
		}
		err := put(obj)
		if !apierrors.IsConflict(err) || attempt >= maxWriteAttempts {
			return err
		}
		obj = nil
	}
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
