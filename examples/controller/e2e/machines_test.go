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
	_, err := s.c.kube.AppsV1().Deployments(ns).Create(ctx, deployment(ns, "batched", 6, "1"), metav1.CreateOptions{})
	require.NoError(t, err)
	waitUntil(t, 90*time.Second, "6 pods running on AKS machines", func(ctx context.Context) error {
		_, err := s.c.runningPods(ctx, ns, "batched", 6)
		return err
	})

	machines := s.sim.MachineNames()
	require.NotEmpty(t, machines)
	assert.Empty(t, s.sim.VMNames(), "no VM of napkit's own")
	assert.Empty(t, s.sim.NICNames(), "no NIC of napkit's own")
	puts := s.sim.RequestsFor(azuresim.OpMachinePut, "")
	assert.LessOrEqual(t, len(puts), len(machines), "machines go out in batches")
	claims, err := s.c.nodeClaims(ctx)
	require.NoError(t, err)
	for _, nc := range claims {
		assert.True(t, strings.HasPrefix(vmName(nc.Status.ProviderID), "aks-"+machinesPool+"-"),
			"NodeClaim %s's provider ID %s is its machine's VM", nc.Name, nc.Status.ProviderID)
	}
	t.Logf("%d pods on %d machines from %d machine PUTs", 6, len(machines), len(puts))

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

// vmName is the last segment of a provider ID.
func vmName(providerID string) string { return providerID[strings.LastIndexByte(providerID, '/')+1:] }
