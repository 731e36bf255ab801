//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/napkit/napkit/api"
)

// seedPool is the seed walkthrough's NodePool: D family, amd64, linux, on-demand, limits.cpu 100,
// consolidateAfter 0s, and Cilium's startup taint.
const seedPool = "general-purpose"

// TestSeedWalkthrough is the README walkthrough of karpenter-provider-azure on a real API server:
// apply the NodePool and AKSNodeClass, scale inflate 0 -> 5, see NodeClaims launched within the
// pool's requirements and limits, nodes join and kube-scheduler bind every pod; delete the
// Deployment and see the empty nodes consolidated away.
func TestSeedWalkthrough(t *testing.T) {
	s := startStack(t, stackOptions{})
	ctx := t.Context()
	applySeed(t, s.c)
	require.NoError(t, s.c.scale(ctx, "default", "inflate", 5))

	waitUntil(t, 90*time.Second, "5 inflate pods running", func(ctx context.Context) error {
		_, err := s.c.runningPods(ctx, "default", "inflate", 5)
		return err
	})
	claims, err := s.c.nodeClaims(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, claims)
	checkSeedClaims(t, claims)
	checkNodesJoined(t, s, claims)

	require.NoError(t, s.c.kube.AppsV1().Deployments("default").Delete(ctx, "inflate", metav1.DeleteOptions{}))
	// consolidateAfter is 0s: the nodes go as soon as a disruption pass, its validation delay and the
	// drain allow.
	waitUntil(t, 90*time.Second, "the empty nodes consolidated away", func(ctx context.Context) error {
		return s.noPoolCapacity(ctx, seedPool)
	})
}

// applySeed creates the seed walkthrough's objects: its NodePool, AKSNodeClass and inflate
// Deployment (0 replicas). The seed's second NodePool, from another document, is left out: it allows
// spot capacity and would take the walkthrough's pods.
func applySeed(t *testing.T, c *cluster) {
	t.Helper()
	objs, err := readObjects(seedManifests(t))
	require.NoError(t, err)
	var keep []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() != api.KindNodePool || o.GetName() == seedPool {
			keep = append(keep, o)
		}
	}
	require.NoError(t, c.create(t.Context(), keep...))
}

// checkSeedClaims checks every NodeClaim against the pool: D family, amd64, on-demand, and the
// claims' CPU within limits.cpu 100.
func checkSeedClaims(t *testing.T, claims []*api.NodeClaim) {
	t.Helper()
	total := resource.Quantity{}
	for _, nc := range claims {
		labels := nc.Labels
		assert.Equal(t, seedPool, labels[api.LabelNodePool], nc.Name)
		assert.Equal(t, "amd64", labels[api.LabelArch], nc.Name)
		assert.Equal(t, api.CapacityTypeOnDemand, labels[api.LabelCapacityType], nc.Name)
		assert.True(t, strings.HasPrefix(labels[api.LabelInstanceType], "Standard_D"), "%s is %s", nc.Name, labels[api.LabelInstanceType])
		total.Add(nc.Status.Capacity[corev1.ResourceCPU])
	}
	assert.LessOrEqual(t, total.Value(), int64(100), "CPU of all NodeClaims")
	t.Logf("%d NodeClaims, %s CPUs in all", len(claims), total.String())
}

// checkNodesJoined checks that every claim has its Node, Ready, with the claim's provider ID and
// without the startup or unregistered taints, and that the claim says Registered and Initialized.
func checkNodesJoined(t *testing.T, s *stack, claims []*api.NodeClaim) {
	t.Helper()
	nodes, err := s.c.poolNodes(t.Context(), seedPool)
	require.NoError(t, err)
	byProvider := map[string]corev1.Node{}
	for _, n := range nodes {
		byProvider[n.Spec.ProviderID] = n
	}
	for _, nc := range claims {
		n, ok := byProvider[nc.Status.ProviderID]
		if !assert.True(t, ok, "NodeClaim %s has no Node with provider ID %q", nc.Name, nc.Status.ProviderID) {
			continue
		}
		assert.Equal(t, n.Name, nc.Status.NodeName)
		for _, taint := range n.Spec.Taints {
			assert.NotContains(t, []string{"node.cilium.io/agent-not-ready", "karpenter.sh/unregistered"}, taint.Key, n.Name)
		}
		for _, cond := range []string{api.ConditionLaunched, api.ConditionRegistered, api.ConditionInitialized} {
			assert.True(t, conditionTrue(nc, cond), "NodeClaim %s: %s", nc.Name, cond)
		}
	}
}

func conditionTrue(nc *api.NodeClaim, kind string) bool {
	for _, c := range nc.Status.Conditions {
		if c.Type == kind {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

// noPoolCapacity is nil once the pool has no NodeClaim, no Node and the cluster no VM or NIC.
func (s *stack) noPoolCapacity(ctx context.Context, pool string) error {
	claims, err := s.c.nodeClaims(ctx)
	if err != nil {
		return err
	}
	nodes, err := s.c.poolNodes(ctx, pool)
	if err != nil {
		return err
	}
	vms, nics := s.sim.VMNames(), s.sim.NICNames()
	if len(claims)+len(nodes)+len(vms)+len(nics) > 0 {
		return fmt.Errorf("%d NodeClaims, %d nodes, %d VMs, %d NICs left", len(claims), len(nodes), len(vms), len(nics))
	}
	return nil
}
