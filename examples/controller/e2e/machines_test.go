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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/launch/azuresim"
)

// TestMachineAPIHeaderBatch runs the controller in the AKS Machine API's header-batch mode
// (--provision-mode=aksmachineapiheaderbatch): pending pods get AKS Machines, sent in batches
// (no NIC and no VM PUT of napkit's own), whose nodes register and run the pods; once the pods
// are gone consolidation removes the empty nodes and their machines, leaving none behind.
func TestMachineAPIHeaderBatch(t *testing.T) {
	s := startStack(t, stackOptions{provisionMode: imagefamily.ModeMachineAPIHeaderBatch})
	ctx := t.Context()
	applySeed(t, s.c)
	ns := s.c.newNamespace(t, "machines")
	// One pod per host: four machines, launched together.
	dep := deployment(ns, "batched", 4, "1")
	dep.Spec.Template.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey: corev1.LabelHostname, LabelSelector: dep.Spec.Selector,
		}},
	}}
	_, err := s.c.kube.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{})
	require.NoError(t, err)
	waitUntil(t, 90*time.Second, "4 pods running on AKS machines", func(ctx context.Context) error {
		_, err := s.c.runningPods(ctx, ns, "batched", 4)
		return err
	})

	machines := s.sim.MachineNames()
	require.Len(t, machines, 4)
	assert.Empty(t, s.sim.VMNames(), "no VM of napkit's own")
	assert.Empty(t, s.sim.NICNames(), "no NIC of napkit's own")
	var puts, batched int
	for _, r := range s.sim.Requests() {
		if r.Op == azuresim.OpMachinePut {
			puts++
			batched = max(batched, len(r.Batch))
		}
	}
	assert.Less(t, puts, len(machines), "machines go out in batches")
	assert.Greater(t, batched, 1, "a PUT carries several machines")
	claims, err := s.c.nodeClaims(ctx)
	require.NoError(t, err)
	for _, nc := range claims {
		assert.True(t, strings.HasPrefix(lastSegment(nc.Status.ProviderID), "aks-"+machinesPool+"-"),
			"NodeClaim %s's provider ID %s is its machine's VM", nc.Name, nc.Status.ProviderID)
	}
	t.Logf("4 pods on %d machines from %d machine PUTs (the largest batch %d)", len(machines), puts, batched)

	require.NoError(t, s.c.scale(ctx, ns, "batched", 0))
	waitUntil(t, 120*time.Second, "the empty nodes and their machines removed", func(ctx context.Context) error {
		claims, err := s.c.nodeClaims(ctx)
		if err != nil {
			return err
		}
		if left := s.sim.MachineNames(); len(claims) > 0 || len(left) > 0 {
			return fmt.Errorf("%d NodeClaims, machines %v", len(claims), left)
		}
		return nil
	})
}
