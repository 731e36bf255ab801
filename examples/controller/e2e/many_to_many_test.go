//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/examples/controller/internal/controller"
)

// TestManyToManyConsolidation: with Config.Consolidation.AllowManyToMany (the binary's
// --consolidation-allow-many-to-many) one command replaces two underused nodes by two new
// NodeClaims, and the controller carries it through on the real control plane: both
// replacements launched and initialized, both old nodes drained and their VMs deleted, the pods
// running on the new nodes, no VM left without a NodeClaim.
//
// Two big nodes are made for two "holder" pods (one per node by anti-affinity); two "app" pods,
// one per node by anti-affinity too, land beside them. Once the holders go, neither node can be
// deleted (the other may not take its app pod) and the two are cheaper as two small nodes.
func TestManyToManyConsolidation(t *testing.T) {
	s := startStack(t, stackOptions{tune: func(cfg *controller.Config) { cfg.Consolidation.AllowManyToMany = true }})
	ctx := t.Context()
	ns := seedWithHolders(t, s, "many", 2, "6")
	big, err := s.c.poolNodes(ctx, seedPool)
	require.NoError(t, err)
	require.Len(t, big, 2)
	_, err = s.c.kube.AppsV1().Deployments(ns).Create(ctx, spread(ns, "app", 2), metav1.CreateOptions{})
	require.NoError(t, err)
	waitUntil(t, time.Minute, "two app pods running on the big nodes", func(ctx context.Context) error {
		return appOn(ctx, s, ns, namesOf(big))
	})

	require.NoError(t, s.c.kube.AppsV1().Deployments(ns).Delete(ctx, "holder", metav1.DeleteOptions{}))
	var small []corev1.Node
	waitUntil(t, 3*time.Minute, "the app pods on two new nodes, the big ones gone", func(ctx context.Context) error {
		nodes, err := s.c.poolNodes(ctx, seedPool)
		if err != nil {
			return err
		}
		for _, n := range nodes {
			if slices.Contains(namesOf(big), n.Name) {
				return fmt.Errorf("big node %s still there", n.Name)
			}
		}
		if len(nodes) != 2 {
			return fmt.Errorf("%d nodes in the pool", len(nodes))
		}
		small = nodes
		return appOn(ctx, s, ns, namesOf(nodes))
	})
	assertOneManyToManyCommand(t, s)
	for _, n := range small {
		assert.Less(t, n.Status.Allocatable.Cpu().MilliValue(), big[0].Status.Allocatable.Cpu().MilliValue(), "node %s", n.Name)
	}
	// A Node goes before its NodeClaim: the claim's finalizer waits for the VM's deletion, so
	// the old claims and VMs are awaited, not asserted at the instant the nodes are gone.
	waitUntil(t, time.Minute, "two NodeClaims and two VMs left", func(ctx context.Context) error {
		claims, err := s.c.nodeClaims(ctx)
		if err != nil {
			return err
		}
		vms, err := s.launcher.List(ctx)
		if err != nil {
			return err
		}
		if len(claims) != 2 || len(vms) != 2 {
			return fmt.Errorf("%d NodeClaims, %d VMs", len(claims), len(vms))
		}
		return nil
	})
}

// assertOneManyToManyCommand finds the NodeClaim events of the command: both old claims were
// terminated by one replace that launched two NodeClaims.
func assertOneManyToManyCommand(t *testing.T, s *stack) {
	t.Helper()
	events, err := s.c.kube.CoreV1().Events(metav1.NamespaceDefault).List(t.Context(), metav1.ListOptions{FieldSelector: "reason=DisruptionTerminating"})
	require.NoError(t, err)
	messages := map[string]bool{}
	for _, e := range events.Items {
		messages[e.Message] = true
	}
	require.Len(t, messages, 1, "one command: %v", messages)
	for m := range messages {
		assert.True(t, strings.HasPrefix(m, "replace Underutilized"), m)
		assert.Contains(t, m, " by 2 NodeClaims, ")
		assert.Equal(t, 2, strings.Count(m[:strings.Index(m, " by ")], ",")+1, "nodes in %q", m)
	}
}

// appOn is nil once both app pods run, one on each of the named nodes.
func appOn(ctx context.Context, s *stack, ns string, nodes []string) error {
	pods, err := s.c.runningPods(ctx, ns, "app", 2)
	if err != nil {
		return err
	}
	var on []string
	for _, p := range pods {
		on = append(on, p.Spec.NodeName)
	}
	slices.Sort(on)
	if want := slices.Sorted(slices.Values(nodes)); !slices.Equal(on, want) {
		return fmt.Errorf("app pods on %v, want %v", on, want)
	}
	return nil
}

func namesOf(nodes []corev1.Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Name
	}
	return out
}
