//go:build e2e

package e2e

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// samplePeriod is how often the watchers of a roll or a drain look at the cluster: often enough to
// see a pod down between two controller steps, rarely enough not to load the API server.
const samplePeriod = 100 * time.Millisecond

// sampleUntilDone runs sample every samplePeriod until ctx is cancelled, then closes done. The
// watchers of paced drains and rolls share it so that each only says what it looks at.
func sampleUntilDone(ctx context.Context, done chan<- struct{}, sample func(context.Context)) {
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			sample(ctx)
			select {
			case <-ctx.Done():
			case <-time.After(samplePeriod):
			}
		}
	}()
}

// readyPods counts the pods of ns matching selector that are Ready and not being deleted.
func readyPods(ctx context.Context, s *stack, ns, selector string) (int, error) {
	pods, err := s.c.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return 0, err
	}
	ready := 0
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	return ready, nil
}
