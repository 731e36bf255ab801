package controller

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/launch/azuresim"
	"github.com/napkit/napkit/launch/discovery"
)

// quotaEnv is a testEnv on the embedded westus2 catalogue with one AKSNodeClass, a NodePool of
// the given sizes and one pending pod asking for a vCPU. With limits, the quota loop reads the
// usages from a simulated Azure with those vCPU limits; without, quota is off.
func quotaEnv(t *testing.T, limits map[string]int, sizes ...string) *testEnv {
	t.Helper()
	e := newTestEnv(t)
	build, err := NewCatalogue("westus2", api.DefaultClusterNetwork(), e.c.cfg.Offerings)
	require.NoError(t, err)
	e.c.catalogues = newCatalogueCache(build, e.c.cfg.Offerings)
	e.c.catalogues.quota = e.c.quota.current
	if limits != nil {
		sim := azuresim.New(azuresim.Options{Location: "westus2", Quota: limits})
		usage, err := discovery.NewUsage(discovery.UsageOptions{SubscriptionID: sim.SubscriptionID(), Location: sim.Location(),
			Credential: sim.Credential(), ClientOptions: sim.ClientOptions()})
		require.NoError(t, err)
		e.c.cfg.Upkeep.Usage = usage
	}
	e.addClass(t, "default")
	pool := poolOf("default", "default")
	pool.Spec.Template.Spec.Requirements = []api.NodeSelectorRequirementWithMinValues{
		{Key: api.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: sizes},
		{Key: api.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{api.CapacityTypeOnDemand}},
	}
	e.addPool(t, pool)
	pod := newPod("web", unschedulable())
	pod.Spec.Containers = []corev1.Container{{Name: "web", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}
	e.addPod(t, pod)
	return e
}

// The quota loop in the controller: the simulated Azure serves a vCPU family with no quota left
// (upstream: pkg/providers/quota); after one refresh that family's offerings are unavailable, so a
// pod only it could host gets a FailedScheduling event naming the quota and no NodeClaim (nothing
// is launched), and a pod another family can host gets a NodeClaim whose every size option is of
// that other family, although the exhausted one is cheaper. Without quota the cheaper family wins.
func TestQuotaLoopHoldsFamilyBack(t *testing.T) {
	const d2, e2 = "Standard_D2s_v5", "Standard_E2s_v5"                                    // standardDSv5Family, standardESv5Family
	exhausted := map[string]int{"standardDSv5Family": 0, azuresim.QuotaTotalRegional: 100} // no quota granted: at its limit
	tests := []struct {
		name   string
		limits map[string]int
		sizes  []string
		// wantSizes are the size options of the one NodeClaim; nil means none is created.
		wantSizes []string
		wantEvent string
	}{
		{name: "only the exhausted family fits", limits: exhausted, sizes: []string{d2},
			wantEvent: "vCPU quota standardDSv5Family: 0 of 0 used, Standard_D2s_v5 needs 2"},
		{name: "another family takes the pod", limits: exhausted, sizes: []string{d2, e2}, wantSizes: []string{e2}},
		{name: "quota off: the cheaper family", sizes: []string{d2, e2}, wantSizes: []string{d2, e2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := quotaEnv(t, tt.limits, tt.sizes...)
			ctx := context.Background()
			if tt.limits != nil {
				e.c.refreshQuota(ctx)
				table, _ := e.c.quota.current()
				require.NotNil(t, table, "the quota loop read the usages")
			}
			require.NoError(t, e.c.provision(ctx))

			claims, err := e.dyn.Resource(NodeClaimsGVR).List(ctx, metav1.ListOptions{})
			require.NoError(t, err)
			if tt.wantSizes == nil {
				assert.Empty(t, claims.Items, "no NodeClaim, so no launch")
			} else {
				require.Len(t, claims.Items, 1)
				nc, err := FromUnstructured[api.NodeClaim](&claims.Items[0])
				require.NoError(t, err)
				assert.Equal(t, tt.wantSizes, claimSizes(nc))
			}
			events, err := e.kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
			require.NoError(t, err)
			var msgs []string
			for _, ev := range events.Items {
				msgs = append(msgs, ev.Reason+": "+ev.Message)
			}
			if tt.wantEvent == "" {
				assert.Empty(t, msgs)
				return
			}
			require.Len(t, msgs, 1)
			assert.Contains(t, msgs[0], "FailedScheduling: napkit cannot provision a node for this pod")
			assert.Contains(t, msgs[0], tt.wantEvent)
		})
	}
}

// claimSizes are the instance types a NodeClaim lets the launcher try: those every one of its
// instance-type requirements (the pool's and the plan's) allows.
func claimSizes(nc *api.NodeClaim) []string {
	var out []string
	first := true
	for _, r := range nc.Spec.Requirements {
		if r.Key != api.LabelInstanceType {
			continue
		}
		if first {
			out, first = slices.Clone(r.Values), false
			continue
		}
		out = slices.DeleteFunc(out, func(v string) bool { return !slices.Contains(r.Values, v) })
	}
	return out
}

// TestProvisionGathersWithinThePendingBound: a batch's claims are remembered for release together
// (and its pods predicted) only while the pods pending in the cluster, the batch's and those held
// for earlier plans, are within NominateMaxPending: past it nominationBudget writes none, and
// holding the batch's nodes for one another would only delay them.
func TestProvisionGathersWithinThePendingBound(t *testing.T) {
	t.Parallel()
	const d2 = "Standard_D2s_v5"
	tests := []struct {
		name string
		held int
		want bool
	}{
		{name: "within the bound", held: 0, want: true},
		{name: "past it with the held pods", held: 2, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := quotaEnv(t, nil, d2) // one pending pod asking for a vCPU
			e.c.cfg.NominateMaxPending = 4
			// A D2 each: one goes to the in-flight claim, two to new ones.
			e.addPod(t, newPod("second", unschedulable(), cpuRequest("1500m")), newPod("third", unschedulable(), cpuRequest("1500m")))
			e.addClaim(t, testClaim("flying", "default", "", withLabel(api.LabelInstanceType, d2)))
			for i := range tt.held {
				name := fmt.Sprintf("held-%d", i)
				e.addPod(t, newPod(name, unschedulable(), cpuRequest("10m")))
				e.c.planned.record("flying", []string{"default/" + name}, testNow)
			}
			require.NoError(t, e.c.provision(context.Background()))
			claims, err := e.dyn.Resource(NodeClaimsGVR).List(context.Background(), metav1.ListOptions{})
			require.NoError(t, err)
			require.Len(t, claims.Items, 1+2, "the in-flight claim and two new ones")
			assert.Equal(t, tt.want, len(e.c.mates.batches) == 2, "the batch remembered: %v", e.c.mates.batches)
		})
	}
}
