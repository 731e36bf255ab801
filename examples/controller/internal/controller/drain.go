package controller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/napkit/napkit/snapshot"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// errEvictionBlocked means a PodDisruptionBudget refused an eviction (HTTP 429); the drain is
// retried with backoff until the budget allows it.
var errEvictionBlocked = errors.New("eviction blocked by a PodDisruptionBudget")

// Drain tiers, evicted one at a time in this order (Karpenter's): ordinary pods first, so that
// the DaemonSet and critical pods they may depend on (logging, networking, DNS) stay until last.
const (
	tierNormal = iota
	tierDaemon
	tierCritical
	tierCriticalDaemon
)

// drain evicts the lowest tier of pods still on the node, in the order the disruption command
// listed their moves, and reports whether the node is empty of pods worth waiting for. A pod whose
// PodDisruptionBudget allows no eviction now is left for a later round rather than refused
// (pdbgate.go); a refusal all the same is recorded on the NodeClaim.
func (c *Controller) drain(ctx context.Context, node *corev1.Node) (bool, error) {
	waiting := c.drainable(node)
	if len(waiting) == 0 {
		return true, nil
	}
	tier := slices.Min(mapSlice(waiting, podTier))
	gate := c.newEvictionGate()
	var errs []error
	for _, pod := range c.inDrainOrder(node.Name, waiting) {
		if podTier(pod) != tier || pod.DeletionTimestamp != nil {
			continue
		}
		held, err := gate.evictIfAllowed(ctx, pod)
		switch {
		case held != "":
			continue
		case err == nil:
			c.evictionCleared(ctx, node)
		case errors.Is(err, errEvictionBlocked):
			c.evictionRefused(ctx, node, pod, mapSlice(gate.covering(pod), pdbKey))
		}
		errs = append(errs, err)
	}
	return false, errors.Join(errs...)
}

// drainable are the node's pods the drain waits for: not finished, not mirror pods (the kubelet
// owns them), not pods that tolerate the disrupted taint (they would come straight back), and not
// pods stuck terminating past their grace period.
func (c *Controller) drainable(node *corev1.Node) []*corev1.Pod {
	now := c.now()
	var out []*corev1.Pod
	for _, pod := range c.podsOn(node.Name) {
		switch {
		case snapshot.Terminal(pod), snapshot.MirrorPod(pod), toleratesDisrupted(pod):
		case pod.DeletionTimestamp != nil && !now.Before(pod.DeletionTimestamp.Time):
		default:
			out = append(out, pod)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.Pod) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return out
}

// evict asks the API server to evict the pod, which checks its PodDisruptionBudgets. A pod
// already gone counts as evicted.
func (c *Controller) evict(ctx context.Context, pod *corev1.Pod) error {
	eviction := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace}}
	err := c.cfg.Kube.PolicyV1().Evictions(pod.Namespace).Evict(ctx, eviction)
	switch {
	case err == nil:
		c.log.Info("evicted", "pod", pod.Namespace+"/"+pod.Name, "node", pod.Spec.NodeName)
		c.podEvent(ctx, pod, corev1.EventTypeNormal, "Evicted", "evicted by napkit to drain node "+pod.Spec.NodeName)
		return nil
	case apierrors.IsNotFound(err):
		return nil
	case isTooManyRequests(err):
		return fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, errEvictionBlocked)
	}
	return fmt.Errorf("evict pod %s/%s: %w", pod.Namespace, pod.Name, err)
}

func isTooManyRequests(err error) bool {
	var status apierrors.APIStatus
	return apierrors.IsTooManyRequests(err) || (errors.As(err, &status) && status.Status().Code == http.StatusTooManyRequests)
}

func podTier(pod *corev1.Pod) int {
	critical := pod.Spec.PriorityClassName == "system-cluster-critical" || pod.Spec.PriorityClassName == "system-node-critical"
	switch {
	case critical && snapshot.DaemonPod(pod):
		return tierCriticalDaemon
	case critical:
		return tierCritical
	case snapshot.DaemonPod(pod):
		return tierDaemon
	}
	return tierNormal
}

// toleratesDisrupted reports whether a toleration matches karpenter.sh/disrupted:NoSchedule (any
// value), e.g. the match-everything toleration some DaemonSets carry.
func toleratesDisrupted(pod *corev1.Pod) bool {
	t := disruptedTaint()
	return slices.ContainsFunc(pod.Spec.Tolerations, func(tol corev1.Toleration) bool {
		keyOK := tol.Key == t.Key || (tol.Key == "" && tol.Operator == corev1.TolerationOpExists)
		effectOK := tol.Effect == "" || tol.Effect == t.Effect
		valueOK := tol.Operator == corev1.TolerationOpExists || tol.Value == t.Value
		return keyOK && effectOK && valueOK
	})
}

func mapSlice[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
