//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/napkit/napkit/api"
)

const (
	cappedPool = "capped"
	cappedCPU  = 4
	cappedPods = 6
)

// TestNodePoolLimitStopsProvisioning asks for 6 one-CPU pods from a pool limited to 4 CPUs: the
// controller launches up to the limit and no further, and each pod left pending carries an event
// saying the limit is why.
func TestNodePoolLimitStopsProvisioning(t *testing.T) {
	s := startStack(t, stackOptions{})
	ctx := t.Context()
	require.NoError(t, s.c.create(ctx, seedNodeClass(t), cappedNodePool()))
	ns := s.c.newNamespace(t, "limits")
	_, err := s.c.kube.AppsV1().Deployments(ns).Create(ctx, deployment(ns, "capped", cappedPods, "1"), metav1.CreateOptions{})
	require.NoError(t, err)

	var pending []corev1.Pod
	waitUntil(t, 90*time.Second, "the pool full and the other pods pending", func(ctx context.Context) error {
		var err error
		pending, err = limitReached(ctx, s, ns)
		return err
	})
	holdFor(t, 8*time.Second, "no NodeClaim beyond the limit", func(ctx context.Context) error {
		_, err := claimedCPU(ctx, s)
		return err
	})
	for _, pod := range pending {
		waitUntil(t, 30*time.Second, "a limit event on pod "+pod.Name, func(ctx context.Context) error {
			return limitEvent(ctx, s, &pod)
		})
	}
	events, err := s.c.podEvents(ctx, &pending[0], "FailedScheduling")
	require.NoError(t, err)
	t.Logf("event on %s: %s", pending[0].Name, events[len(events)-1])
}

// seedNodeClass is the seed walkthrough's AKSNodeClass "default".
func seedNodeClass(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	objs, err := readObjects(seedManifests(t))
	require.NoError(t, err)
	for _, o := range objs {
		if o.GetKind() == api.KindAKSNodeClass {
			return o
		}
	}
	t.Fatal("no AKSNodeClass in the seed manifests")
	return nil
}

// cappedNodePool is a D-family, on-demand pool whose limits.cpu holds fewer pods than asked for.
// Consolidation waits, so that it cannot churn the nodes while the test watches the limit.
func cappedNodePool() *unstructured.Unstructured {
	in := func(key string, values ...any) map[string]any {
		return map[string]any{"key": key, "operator": "In", "values": values}
	}
	pool := nodePoolObject(cappedPool, map[string]any{"consolidationPolicy": "WhenEmpty", "consolidateAfter": "5m"},
		[]any{in(api.LabelArch, "amd64"), in(api.LabelCapacityType, api.CapacityTypeOnDemand),
			in("karpenter.azure.com/sku-family", "D")})
	_ = unstructured.SetNestedField(pool.Object, map[string]any{"cpu": fmt.Sprint(cappedCPU)}, "spec", "limits")
	return pool
}

// claimedCPU sums the CPU capacity of the NodeClaims, an error past the limit.
func claimedCPU(ctx context.Context, s *stack) (int64, error) {
	claims, err := s.c.nodeClaims(ctx)
	if err != nil {
		return 0, err
	}
	total := resource.Quantity{}
	for _, nc := range claims {
		total.Add(nc.Status.Capacity[corev1.ResourceCPU])
	}
	if total.Value() > cappedCPU {
		return 0, fmt.Errorf("%d NodeClaims with %s CPUs, over the limit of %d", len(claims), total.String(), cappedCPU)
	}
	return total.Value(), nil
}

// limitReached is nil once the claims fill the limit exactly, every claim's node runs pods, and
// the remaining pods are pending; it returns those.
func limitReached(ctx context.Context, s *stack, ns string) ([]corev1.Pod, error) {
	cpu, err := claimedCPU(ctx, s)
	if err != nil {
		return nil, err
	}
	pods, err := s.c.appPods(ctx, ns, "capped")
	if err != nil {
		return nil, err
	}
	var running int
	var pending []corev1.Pod
	for _, p := range pods {
		switch {
		case p.Status.Phase == corev1.PodRunning:
			running++
		case p.Spec.NodeName == "":
			pending = append(pending, p)
		}
	}
	if cpu != cappedCPU || running == 0 || len(pending) == 0 || running+len(pending) != cappedPods {
		return nil, fmt.Errorf("%d CPUs claimed, %d pods running, %d pending", cpu, running, len(pending))
	}
	return pending, nil
}

// limitEvent is nil once the pod has a FailedScheduling event from napkit naming the limit.
func limitEvent(ctx context.Context, s *stack, pod *corev1.Pod) error {
	events, err := s.c.podEvents(ctx, pod, "FailedScheduling")
	if err != nil {
		return err
	}
	for _, e := range events {
		if strings.Contains(e, "napkit") && strings.Contains(e, "limit") {
			return nil
		}
	}
	return fmt.Errorf("FailedScheduling events: %q", events)
}
