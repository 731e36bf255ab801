//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestPacedConsolidation: six replicas of an app under a PDB that allows one disruption sit two to
// a node on three underused nodes, in a NodePool whose budget allows every node at once.
// Consolidation may move only one of them at a time, and no multi-node command fits; each node goes on its own, drained one allowance at a time (the
// controller reads the PDB before each eviction and waits while it allows none). The test watches
// the whole way: at most one node disrupted at a time, never fewer than five of the six replicas
// Ready, no eviction refused (no EvictionBlocked condition, no EvictionRefused event), and at the end
// one node holds all six.
func TestPacedConsolidation(t *testing.T) {
	s := startStack(t, stackOptions{})
	ctx := t.Context()
	// The seed pool's default budget (10% of 3 nodes) would itself allow one node at a time; at
	// 100% only the PDB keeps consolidation from taking two nodes at once.
	// Three nodes, each made for one "holder" pod; the six app replicas created afterwards are
	// spread over them by kube-scheduler's default spreading.
	ns := seedWithHolders(t, s, "paced", 3, "1200m")
	_, err := s.c.kube.AppsV1().Deployments(ns).Create(ctx, deployment(ns, "app", 6, "100m"), metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = s.c.kube.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb(ns, "app", 1), metav1.CreateOptions{})
	require.NoError(t, err)
	waitUntil(t, time.Minute, "six app pods running on three nodes", func(ctx context.Context) error {
		return appOnNodes(ctx, s, ns, 3)
	})
	waitUntil(t, 30*time.Second, "the PDB allowing one disruption", func(ctx context.Context) error {
		p, err := s.c.kube.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "app", metav1.GetOptions{})
		if err == nil && (p.Status.CurrentHealthy != 6 || p.Status.DisruptionsAllowed != 1) {
			err = fmt.Errorf("%d healthy, %d allowed", p.Status.CurrentHealthy, p.Status.DisruptionsAllowed)
		}
		return err
	})

	w := watchPacing(t, s, ns)
	began := time.Now()
	require.NoError(t, s.c.kube.AppsV1().Deployments(ns).Delete(ctx, "holder", metav1.DeleteOptions{}))
	settled := waitUntil(t, 3*time.Minute, "all six app pods on one node, nothing disrupted", func(ctx context.Context) error {
		if err := appOnNodes(ctx, s, ns, 1); err != nil {
			return err
		}
		nodes, err := s.c.poolNodes(ctx, seedPool)
		if err == nil && len(nodes) != 1 {
			err = fmt.Errorf("%d nodes in the pool", len(nodes))
		}
		return err
	})
	w.stop()
	t.Logf("settled %s after the holders went (%s in all)", settled, time.Since(began).Round(time.Millisecond))
	w.report(t)
}

// appOnNodes is nil once exactly six app pods run, spread over exactly want nodes.
func appOnNodes(ctx context.Context, s *stack, ns string, want int) error {
	pods, err := s.c.runningPods(ctx, ns, "app", 6)
	if err != nil {
		return err
	}
	nodes := map[string]int{}
	for _, p := range pods {
		nodes[p.Spec.NodeName]++
	}
	if len(nodes) != want {
		return fmt.Errorf("app pods on %d nodes, want %d: %v", len(nodes), want, nodes)
	}
	return nil
}

// pacingWatch samples the cluster while consolidation runs.
type pacingWatch struct {
	s      *stack
	ns     string
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	// minReady is the fewest Ready app pods seen; maxDisrupted the most nodes tainted
	// karpenter.sh/disrupted at once; disrupted every node ever tainted; blocked every
	// EvictionBlocked condition seen.
	minReady, maxDisrupted, samples int
	disrupted                       map[string]bool
	blocked                         []string
}

func watchPacing(t *testing.T, s *stack, ns string) *pacingWatch {
	ctx, cancel := context.WithCancel(t.Context())
	w := &pacingWatch{s: s, ns: ns, cancel: cancel, done: make(chan struct{}), minReady: 6, disrupted: map[string]bool{}}
	sampleUntilDone(ctx, w.done, w.sample)
	return w
}

func (w *pacingWatch) sample(ctx context.Context) {
	ready, err := readyPods(ctx, w.s, w.ns, "app=app")
	if err != nil {
		return
	}
	nodes, err := w.s.c.poolNodes(ctx, seedPool)
	if err != nil {
		return
	}
	claims, err := w.s.c.nodeClaims(ctx)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.samples++
	w.minReady = min(w.minReady, ready)
	disrupted := 0
	for _, n := range nodes {
		for _, taint := range n.Spec.Taints {
			if taint.Key == "karpenter.sh/disrupted" {
				disrupted++
				w.disrupted[n.Name] = true
			}
		}
	}
	w.maxDisrupted = max(w.maxDisrupted, disrupted)
	for _, nc := range claims {
		if conditionTrue(nc, "EvictionBlocked") {
			w.blocked = append(w.blocked, nc.Name)
		}
	}
}

func (w *pacingWatch) stop() {
	w.cancel()
	<-w.done
}

// report checks what the watch saw.
func (w *pacingWatch) report(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	t.Logf("%d samples: at least %d of 6 app pods Ready, at most %d node(s) disrupted at once, %d nodes disrupted in all",
		w.samples, w.minReady, w.maxDisrupted, len(w.disrupted))
	assert.GreaterOrEqual(t, w.minReady, 5, "the PDB allows one app pod down at a time")
	assert.Equal(t, 1, w.maxDisrupted, "nodes disrupted at once")
	assert.Len(t, w.disrupted, 2, "two of the three nodes consolidated")
	assert.Empty(t, w.blocked, "NodeClaims with EvictionBlocked")
	events, err := w.s.c.kube.CoreV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{FieldSelector: "reason=EvictionRefused"})
	require.NoError(t, err)
	assert.Empty(t, events.Items, "EvictionRefused events")
	evicted, err := w.s.c.kube.CoreV1().Events(w.ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=Evicted"})
	require.NoError(t, err)
	t.Logf("%d evictions", len(evicted.Items))
}

// seedWithHolders applies the seed manifests with the pool's budget at 100 % (every node may be
// disrupted at once), and makes one node per "holder" pod (one per node by anti-affinity, each
// requesting cpu) in a new namespace, which it returns once they run.
func seedWithHolders(t *testing.T, s *stack, namespace string, holders int32, cpu string) string {
	t.Helper()
	ctx := t.Context()
	applySeed(t, s.c)
	budget := []byte(`{"spec":{"disruption":{"budgets":[{"nodes":"100%"}]}}}`)
	_, err := s.c.dyn.Resource(nodePoolsGVR).Patch(ctx, seedPool, types.MergePatchType, budget, metav1.PatchOptions{})
	require.NoError(t, err)
	ns := s.c.newNamespace(t, namespace)
	holder := spread(ns, "holder", holders)
	holder.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
	_, err = s.c.kube.AppsV1().Deployments(ns).Create(ctx, holder, metav1.CreateOptions{})
	require.NoError(t, err)
	waitUntil(t, 2*time.Minute, fmt.Sprintf("%d holder pods running", holders), func(ctx context.Context) error {
		_, err := s.c.runningPods(ctx, ns, "holder", int(holders))
		return err
	})
	return ns
}
