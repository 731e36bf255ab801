package provisioner

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// The phase tests run one phase of a run (compile, fleet choice, placement, improvement,
// finalization, bound) on inputs small enough to know the answer, and look at the state the phase
// leaves rather than at a whole plan.

// m4 is a 4-CPU type priced $1/h: 3,900m CPU allocatable (kube-reserved 100m), so four 900m pods
// fill it. m8 is twice the size at twice the price.
var (
	m4 = typeSpec{name: "m4", cpu: "4", memory: "16Gi", price: 1}
	m8 = typeSpec{name: "m8", cpu: "8", memory: "32Gi", price: 2}
)

// phasePool is a NodePool over hand-made types, any zone and capacity type.
func phasePool(name string, specs ...typeSpec) NodePoolInput {
	types := make([]*instancetype.InstanceType, len(specs))
	for i, s := range specs {
		types[i] = fakeType(s)
	}
	return NodePoolInput{NodePool: nodePool(name, req(api.LabelCapacityType, corev1.NodeSelectorOpExists)), InstanceTypes: types}
}

// withLimit sets a NodePool's CPU limit.
func withLimit(np NodePoolInput, cpu string) NodePoolInput {
	cp := *np.NodePool
	cp.Spec.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
	np.NodePool = &cp
	return np
}

// compileOrFail compiles the input as Solve does.
func compileOrFail(t *testing.T, in Input) *problem {
	t.Helper()
	p, err := compile(&in, in.Options.withDefaults(), false)
	require.NoError(t, err)
	return p
}

// placedOn maps each placed pod's name to its bin's name (new NodeClaims: "new-<bin id>").
func placedOn(e *engine) map[string]string {
	out := map[string]string{}
	for _, pi := range e.pods {
		if b := e.binOf(pi); b != nil {
			name := b.name
			if b.kind == binNew {
				name = fmt.Sprintf("new-%d", b.id)
			}
			out[pi.pod.Name] = name
		}
	}
	return out
}

// liveNewBins counts the new NodeClaims holding pods.
func liveNewBins(e *engine) int {
	n := 0
	for _, b := range e.bins[e.fixedBins:] {
		if !b.dead && len(b.pods) > 0 {
			n++
		}
	}
	return n
}
