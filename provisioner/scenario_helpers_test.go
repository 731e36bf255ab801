package provisioner

import (
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// testPool is the NodePool of Karpenter's topology tests: any capacity type.
func testPool(name string, reqs ...api.NodeSelectorRequirementWithMinValues) NodePoolInput {
	reqs = append(reqs, req(api.LabelCapacityType, corev1.NodeSelectorOpExists))
	return NodePoolInput{NodePool: nodePool(name, reqs...), InstanceTypes: karpenterFakes()}
}

var eastus struct {
	once sync.Once
	cat  *instancetype.Catalogue
	err  error
}

// eastusTypes returns the embedded full eastus catalogue, priced (built once per test binary).
func eastusTypes(t testing.TB) []*instancetype.InstanceType {
	t.Helper()
	eastus.once.Do(func() {
		eastus.cat, eastus.err = instancetype.BuildDefault("eastus", api.DefaultClusterNetwork())
	})
	if eastus.err != nil {
		t.Fatalf("eastus catalogue: %v", eastus.err)
	}
	return eastus.cat.InstanceTypes
}

// where maps every placed pod ("ns/name") to its node's labels as the plan gives them.
func where(in Input, plan *Plan) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, nc := range plan.NodeClaims {
		l := map[string]string{api.LabelHostname: nc.Name}
		for k, v := range nc.Labels {
			l[k] = v
		}
		for _, p := range nc.Pods {
			out[p] = l
		}
	}
	for _, np := range plan.ExistingNodes {
		for _, n := range in.Nodes {
			if n.Node.Name == np.Name {
				for _, p := range np.Pods {
					out[p] = normalizedLabels(n.Node.Labels)
				}
			}
		}
	}
	return out
}

// zoneCounts counts pods whose name starts with prefix per zone, bound pods of existing nodes
// included.
func zoneCounts(in Input, plan *Plan, prefix string) map[string]int {
	counts := map[string]int{}
	for p, l := range where(in, plan) {
		if strings.HasPrefix(p, "default/"+prefix) {
			counts[l[api.LabelZone]]++
		}
	}
	for _, n := range in.Nodes {
		for _, p := range n.Pods {
			if strings.HasPrefix(p.Name, prefix) {
				counts[n.Node.Labels[api.LabelZone]]++
			}
		}
	}
	return counts
}

func sortedCounts(m map[string]int) []int {
	var out []int
	for _, v := range m {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

func unschedulableCodes(plan *Plan) map[Code]int {
	out := map[Code]int{}
	for _, u := range plan.Unschedulable {
		out[u.Code]++
	}
	return out
}

func claimsByType(plan *Plan) map[string]int {
	out := map[string]int{}
	for _, nc := range plan.NodeClaims {
		out[nc.InstanceType]++
	}
	return out
}
