package walkthrough

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/examples/controller/internal/controller"
)

// scaleUp scales inflate to 5 and waits until all 5 pods run.
func (s *script) scaleUp(ctx context.Context) error {
	s.narrator.say("kubectl scale deployment %s --replicas %d (1 CPU each)", deployment, replicas)
	d, err := s.kube.AppsV1().Deployments(metav1.NamespaceDefault).Get(ctx, deployment, metav1.GetOptions{})
	if err != nil {
		return err
	}
	d.Spec.Replicas = ptr(int32(replicas))
	if _, err := s.kube.AppsV1().Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("scale: %w", err)
	}
	return s.waitFor(ctx, fmt.Sprintf("%d pods running", replicas), s.allRunning)
}

// deleteNode deletes the node running most of inflate's pods, as `kubectl delete node` does, and
// waits until it is drained and gone and its pods run again elsewhere.
func (s *script) deleteNode(ctx context.Context) error {
	name, pods, err := s.busiestNode(ctx)
	if err != nil {
		return err
	}
	s.narrator.say("kubectl delete node %s (%d of inflate's pods on it)", name, pods)
	if err := s.kube.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete node %s: %w", name, err)
	}
	return s.waitFor(ctx, fmt.Sprintf("node %s gone and %d pods running", name, replicas), func(ctx context.Context) (bool, string, error) {
		if s.narrator.hasNode(name) {
			return false, "node still there", nil
		}
		return s.allRunning(ctx)
	})
}

// deleteDeployment deletes inflate and waits until consolidation has removed every node, its
// NodeClaim and its VM.
func (s *script) deleteDeployment(ctx context.Context) error {
	s.narrator.say("kubectl delete deployment %s", deployment)
	if err := s.kube.AppsV1().Deployments(metav1.NamespaceDefault).Delete(ctx, deployment, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete deployment: %w", err)
	}
	return s.waitFor(ctx, "empty nodes consolidated away", func(ctx context.Context) (bool, string, error) {
		nodes, err := s.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		claims, err := s.dyn.Resource(controller.NodeClaimsGVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		vms := s.sim.VMNames()
		// The narrator counts the removed nodes from its informer, which may not have delivered
		// the last deletion when the API server no longer lists the node: the summary waits for it.
		seen := s.narrator.nodesSeen()
		status := fmt.Sprintf("%d nodes, %d NodeClaims, %d VMs left (%d nodes still narrated)", len(nodes.Items), len(claims.Items), len(vms), seen)
		return len(nodes.Items)+len(claims.Items)+len(vms)+seen == 0, status, nil
	})
}

// allRunning asks the narrator, so that "pods running 5/5" is printed before the next step.
func (s *script) allRunning(context.Context) (bool, string, error) {
	running := s.narrator.runningPods()
	return running == replicas, fmt.Sprintf("pods running %d/%d", running, replicas), nil
}

// busiestNode is the node with most of inflate's pods (the first by name on a tie).
func (s *script) busiestNode(ctx context.Context) (string, int, error) {
	pods, err := s.kube.CoreV1().Pods(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{LabelSelector: "app=" + deployment})
	if err != nil {
		return "", 0, err
	}
	count := map[string]int{}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" && p.Status.Phase == corev1.PodRunning {
			count[p.Spec.NodeName]++
		}
	}
	if len(count) == 0 {
		return "", 0, fmt.Errorf("no node runs %s's pods", deployment)
	}
	names := sortedKeys(count)
	best := slices.MaxFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(count[a], count[b]), cmp.Compare(b, a)) })
	return best, count[best], nil
}

// waitFor polls done until it reports true, the step times out, or the walkthrough ends.
func (s *script) waitFor(ctx context.Context, what string, done func(context.Context) (bool, string, error)) error {
	deadline := time.Now().Add(s.stepTimeout)
	status := ""
	for {
		ok, st, err := done(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		status = st
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s: %s", s.stepTimeout, what, status)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s (%s): %w", what, status, context.Cause(ctx))
		case <-time.After(50 * time.Millisecond):
		}
	}
}
