package provisioner

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// Regional capacity (zone "0") is no fourth domain of a zone spread: on the eastus catalogue, whose
// every size is also offered regionally, 9 replicas with maxSkew 1 land 3/3/3 in the three real
// zones, none on a VM whose zone is unknown (before: 3/2/2/2 with three pods regional).
func TestZoneSpreadSkipsRegional(t *testing.T) {
	for _, skew := range []int32{1, 2} {
		in := Input{Pods: spreadPods(9, "web", "1", api.LabelZone, skew), NodePools: []NodePoolInput{{
			NodePool:      nodePool("default", req(api.LabelCapacityType, corev1.NodeSelectorOpIn, api.CapacityTypeOnDemand)),
			InstanceTypes: eastusTypes(t)}}}
		plan := solveOrFail(t, in)
		counts := zoneCounts(in, plan, "web")
		if counts[api.RegionalZone] != 0 || len(counts) != 3 {
			t.Fatalf("maxSkew %d: want every pod in a real zone: %v", skew, counts)
		}
		if s := sortedCounts(counts); s[len(s)-1]-s[0] > int(skew) {
			t.Fatalf("maxSkew %d broken: %v", skew, counts)
		}
		if skew == 1 {
			wantCounts(t, counts, 3, 3, 3)
		}
	}
}

// Zonal anti-affinity does not use the regional zone while a real zone is free.
func TestZoneAntiAffinitySkipsRegional(t *testing.T) {
	in := Input{Pods: pods(3, "db", "1", "", withLabels(appTest...), withAntiAffinity(api.LabelZone, selector(appTest...))),
		NodePools: []NodePoolInput{{NodePool: nodePool("default"), InstanceTypes: eastusTypes(t)}}}
	plan := solveOrFail(t, in)
	counts := zoneCounts(in, plan, "db")
	if counts[api.RegionalZone] != 0 || len(plan.Unschedulable) != 0 {
		t.Fatalf("counts %v, unschedulable %+v", counts, plan.Unschedulable)
	}
	wantCounts(t, counts, 1, 1, 1)
}

// A pod with a zone spread still goes regional when only regional capacity can take it: here its
// NodePool allows only zone "0" (a pool for sizes a subscription gets no zonal quota for), or the pod
// itself selects it.
func TestZoneSpreadOnlyRegionalFits(t *testing.T) {
	cases := map[string]Input{
		"pool allows only regional": {Pods: spreadPods(3, "web", "1", api.LabelZone, 1), NodePools: []NodePoolInput{{
			NodePool: nodePool("regional", req(api.LabelZone, corev1.NodeSelectorOpIn, api.RegionalZone)), InstanceTypes: eastusTypes(t)}}},
		"pod selects regional": {Pods: spreadPods(3, "web", "1", api.LabelZone, 1, withNodeSelector(api.LabelZone, api.RegionalZone)),
			NodePools: []NodePoolInput{{NodePool: nodePool("default"), InstanceTypes: eastusTypes(t)}}},
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			plan := solveOrFail(t, in)
			if len(plan.Unschedulable) != 0 {
				t.Fatalf("unschedulable: %+v", plan.Unschedulable)
			}
			if counts := zoneCounts(in, plan, "web"); counts[api.RegionalZone] != 3 {
				t.Fatalf("counts %v, want all 3 pods regional", counts)
			}
		})
	}
}
