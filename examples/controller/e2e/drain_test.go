//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDeleteNodeDrains deletes a provisioned node the way `kubectl delete node` does. The
// karpenter.sh/termination finalizer keeps the Node while the controller cordons and drains it; a
// PodDisruptionBudget allowing no disruption holds the drain (node, VM and pod stay) until it is
// lifted; then the pod is evicted, runs elsewhere, and the node and its VM are gone.
func TestDeleteNodeDrains(t *testing.T) {
	s := startStack(t, stackOptions{})
	ctx := t.Context()
	applySeed(t, s.c)
	ns := s.c.newNamespace(t, "drain")
	_, err := s.c.kube.AppsV1().Deployments(ns).Create(ctx, deployment(ns, "guarded", 1, "1"), metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = s.c.kube.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb(ns, "guarded", 0), metav1.CreateOptions{})
	require.NoError(t, err)

	var first corev1.Pod
	waitUntil(t, 90*time.Second, "the guarded pod running", func(ctx context.Context) error {
		pods, err := s.c.runningPods(ctx, ns, "guarded", 1)
		if err == nil {
			first = pods[0]
		}
		return err
	})
	victim := first.Spec.NodeName
	waitUntil(t, 30*time.Second, "the PDB counting the pod healthy", func(ctx context.Context) error {
		return pdbHealthy(ctx, s, ns, "guarded", 1)
	})
	vm := vmOf(t, s, victim)

	require.NoError(t, s.c.kube.CoreV1().Nodes().Delete(ctx, victim, metav1.DeleteOptions{}))
	waitUntil(t, 30*time.Second, "node "+victim+" cordoned", func(ctx context.Context) error {
		return cordoned(ctx, s, victim)
	})
	holdFor(t, 8*time.Second, "the PDB blocking the drain", func(ctx context.Context) error {
		return stillOn(ctx, s, ns, "guarded", victim, vm)
	})

	require.NoError(t, s.c.kube.PolicyV1().PodDisruptionBudgets(ns).Delete(ctx, "guarded", metav1.DeleteOptions{}))
	waitUntil(t, 60*time.Second, "node "+victim+" and its VM gone", func(ctx context.Context) error {
		return gone(ctx, s, victim, vm)
	})
	waitUntil(t, 90*time.Second, "the guarded pod running on another node", func(ctx context.Context) error {
		pods, err := s.c.runningPods(ctx, ns, "guarded", 1)
		if err == nil && pods[0].Spec.NodeName == victim {
			return fmt.Errorf("pod still on %s", victim)
		}
		return err
	})
	// The pod left through the eviction API (which is what honours PDBs), not a plain delete.
	events, err := s.c.podEvents(ctx, &first, "Evicted")
	require.NoError(t, err)
	require.NotEmpty(t, events, "no Evicted event on %s", first.Name)
	t.Logf("event on %s: %s", first.Name, events[0])
}

// vmOf returns the VM behind a node, by the provider ID's last segment.
func vmOf(t *testing.T, s *stack, node string) string {
	t.Helper()
	n, err := s.c.kube.CoreV1().Nodes().Get(t.Context(), node, metav1.GetOptions{})
	require.NoError(t, err)
	inst, err := s.launcher.Get(t.Context(), n.Spec.ProviderID)
	require.NoError(t, err, "VM of node %s", node)
	return inst.Name
}

func pdbHealthy(ctx context.Context, s *stack, ns, name string, want int32) error {
	p, err := s.c.kube.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if p.Status.CurrentHealthy != want || p.Status.DisruptionsAllowed != 0 {
		return fmt.Errorf("PDB %s: %d healthy, %d disruptions allowed", name, p.Status.CurrentHealthy, p.Status.DisruptionsAllowed)
	}
	return nil
}

// cordoned is nil once the node is marked for deletion and no longer takes new pods (cordoned or
// tainted karpenter.sh/disrupted:NoSchedule).
func cordoned(ctx context.Context, s *stack, name string) error {
	n, err := s.c.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if n.DeletionTimestamp == nil {
		return fmt.Errorf("node %s has no deletion timestamp (finalizers %v)", name, n.Finalizers)
	}
	if n.Spec.Unschedulable {
		return nil
	}
	for _, taint := range n.Spec.Taints {
		if taint.Key == "karpenter.sh/disrupted" && taint.Effect == corev1.TaintEffectNoSchedule {
			return nil
		}
	}
	return fmt.Errorf("node %s is neither cordoned nor tainted karpenter.sh/disrupted (taints %v)", name, n.Spec.Taints)
}

// stillOn is nil while the app's pod still runs on the node and the node and its VM exist.
func stillOn(ctx context.Context, s *stack, ns, app, node, vm string) error {
	if _, err := s.c.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); err != nil {
		return fmt.Errorf("node %s: %w", node, err)
	}
	if !slices.Contains(s.sim.VMNames(), vm) {
		return fmt.Errorf("VM %s is gone", vm)
	}
	pods, err := s.c.appPods(ctx, ns, app)
	if err != nil {
		return err
	}
	if len(pods) != 1 || pods[0].Spec.NodeName != node || pods[0].Status.Phase != corev1.PodRunning {
		return fmt.Errorf("pods of %s: %v", app, podPlaces(pods))
	}
	return nil
}

// gone is nil once the node object and its VM no longer exist.
func gone(ctx context.Context, s *stack, node, vm string) error {
	_, err := s.c.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	switch {
	case err == nil:
		return fmt.Errorf("node %s still exists", node)
	case !apierrors.IsNotFound(err):
		return err
	case slices.Contains(s.sim.VMNames(), vm):
		return fmt.Errorf("VM %s still exists", vm)
	}
	return nil
}

func podPlaces(pods []corev1.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, fmt.Sprintf("%s on %q (%s)", p.Name, p.Spec.NodeName, p.Status.Phase))
	}
	return out
}
