package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

func req(key string, op corev1.NodeSelectorOperator, values ...string) NodeSelectorRequirementWithMinValues {
	return NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values}
}

func withMin(r NodeSelectorRequirementWithMinValues, n int) NodeSelectorRequirementWithMinValues {
	r.MinValues = &n
	return r
}

func TestValidateRequirementExactMessage(t *testing.T) {
	err := ValidateRequirement("spec.template.spec.requirements[2]", req(LabelSKUCPU, corev1.NodeSelectorOpGt, "a"))
	assert.ErrorIs(t, err, ErrInvalid)
	assert.EqualError(t, err, `spec.template.spec.requirements[2]: operator Gt needs exactly one non-negative integer, got ["a"]`)
}

func TestValidateRequirement(t *testing.T) {
	const (
		in  = corev1.NodeSelectorOpIn
		out = corev1.NodeSelectorOpNotIn
		ex  = corev1.NodeSelectorOpExists
		dne = corev1.NodeSelectorOpDoesNotExist
		gt  = corev1.NodeSelectorOpGt
		lt  = corev1.NodeSelectorOpLt
	)
	tests := []struct {
		name string
		r    NodeSelectorRequirementWithMinValues
		want string // "" means valid
	}{
		// Valid requirements, one per operator and per kind of allowed key.
		{"In", req(LabelArch, in, "amd64"), ""},
		{"NotIn without values", req(LabelZone, out), ""},
		{"NotIn unknown value is harmless", req(LabelCapacityType, out, "foo"), ""},
		{"Exists", req("example.com/team", ex), ""},
		{"DoesNotExist", req(LabelSKUGPUName, dne), ""},
		{"Gt zero", req(LabelSKUCPU, gt, "0"), ""},
		{"Lt", req(LabelSKUMemory, lt, "65536"), ""},
		{"Gte", req(LabelSKUCPU, NodeSelectorOpGte, "4"), ""},
		{"Lte", req(LabelAKSSKUCPU, NodeSelectorOpLte, "16"), ""},
		{"capacity-type may be required", req(LabelCapacityType, in, "spot", "on-demand"), ""},
		{"nodepool may be required", req(LabelNodePool, in, "general"), ""},
		{"node.kubernetes.io subdomain", req("node.kubernetes.io/purpose", in, "x"), ""},
		{"beta alias", req("beta.kubernetes.io/arch", in, "arm64"), ""},
		{"allowed AKS key", req(LabelAKSMode, in, "user"), ""},
		{"minValues within values", withMin(req(LabelSKUFamily, in, "D", "E", "F"), 3), ""},
		{"minValues on NotIn", withMin(req(LabelSKUFamily, out, "B"), 5), ""},

		// Operators and value counts.
		{"In needs values", req(LabelArch, in), `r: operator In needs at least one value, got []`},
		{"Exists takes none", req(LabelArch, ex, "amd64"), `r: operator Exists takes no values, got ["amd64"]`},
		{"DoesNotExist takes none", req(LabelArch, dne, "x"), `r: operator DoesNotExist takes no values, got ["x"]`},
		{"Gt two values", req(LabelSKUCPU, gt, "1", "2"), `r: operator Gt needs exactly one non-negative integer, got ["1","2"]`},
		{"Gt no values", req(LabelSKUCPU, gt), `r: operator Gt needs exactly one non-negative integer, got []`},
		{"Lt negative", req(LabelSKUCPU, lt, "-1"), `r: operator Lt needs exactly one non-negative integer, got ["-1"]`},
		{"Gte signed", req(LabelSKUCPU, NodeSelectorOpGte, "+5"), `r: operator Gte needs exactly one non-negative integer, got ["+5"]`},
		{"Lte fraction", req(LabelSKUCPU, NodeSelectorOpLte, "1.5"), `r: operator Lte needs exactly one non-negative integer, got ["1.5"]`},
		{"Gt overflow", req(LabelSKUCPU, gt, "99999999999999999999"), `operator Gt needs exactly one non-negative integer`},
		{"unknown operator", req(LabelArch, "Equals", "amd64"), `r.operator: must be one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte, got "Equals"`},
		{"missing operator", req(LabelArch, ""), `r.operator: one of In, NotIn`},

		// Keys.
		{"bad key syntax", req("bad key!", in, "x"), `r.key: invalid label key: `},
		{"empty key", req("", ex), `r.key: invalid label key`},
		{"hostname", req(LabelHostname, in, "node-1"), `r.key: kubernetes.io/hostname is restricted`},
		{"karpenter.sh domain", req("karpenter.sh/initialized", ex), `r.key: label domain karpenter.sh is reserved for Karpenter's own labels (only karpenter.sh/capacity-type and karpenter.sh/nodepool may be required), got "karpenter.sh/initialized"`},
		{"karpenter.sh subdomain", req("foo.karpenter.sh/x", ex), `r.key: label domain karpenter.sh is reserved`},
		{"hyperv generation", req(LabelSKUHyperVGeneration, in, "2"), `r.key: karpenter.azure.com/sku-hyperv-generation is restricted`},
		{"unknown azure key", req("karpenter.azure.com/sku-color", in, "red"), `r.key: not a karpenter.azure.com label NodePools may use; allowed: karpenter.azure.com/aksnodeclass`},
		{"agentpool", req("kubernetes.azure.com/agentpool", in, "nodepool1"), `r.key: AKS sets this label on its own agent pools; napkit nodes belong to none, got "kubernetes.azure.com/agentpool"`},
		{"storageprofile", req("kubernetes.azure.com/storageprofile", in, "managed"), `AKS sets this label on its own agent pools`},
		{"storagetier", req("kubernetes.azure.com/storagetier", in, "Premium_LRS"), `AKS sets this label on its own agent pools`},
		{"unknown AKS key", req("kubernetes.azure.com/role", in, "agent"), `r.key: not a kubernetes.azure.com label NodePools may use`},
		{"kubernetes.io domain", req("topology.kubernetes.io/rack", in, "r1"), `r.key: label domain kubernetes.io is restricted`},
		{"k8s.io domain", req("example.k8s.io/x", ex), `r.key: label domain k8s.io is restricted`},

		// Values.
		{"bad value", req("example.com/team", in, "a b"), `r.values[0]: invalid label value: `},
		{"unknown capacity type", req(LabelCapacityType, in, "foo"), `r.values[0]: karpenter.sh/capacity-type can only be on-demand, reserved, spot, got "foo"`},
		{"unknown arch via alias", req("beta.kubernetes.io/arch", in, "x86"), `r.values[0]: beta.kubernetes.io/arch can only be amd64, arm64, got "x86"`},
		{"second value unknown", req(LabelAKSMode, in, "user", "batch"), `r.values[1]: kubernetes.azure.com/mode can only be system, user, got "batch"`},

		// minValues.
		{"minValues zero", withMin(req(LabelSKUFamily, in, "D"), 0), `r.minValues: must be between 1 and 50, got 0`},
		{"minValues too high", withMin(req(LabelSKUFamily, out, "D"), 51), `r.minValues: must be between 1 and 50, got 51`},
		{"minValues above values", withMin(req(LabelSKUFamily, in, "D", "E"), 3), `r.minValues: cannot exceed the 2 values listed, got 3`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertInvalid(t, ValidateRequirement("r", tt.r), tt.want)
		})
	}
}

func TestValidateRequirementReportsEveryProblem(t *testing.T) {
	err := ValidateRequirement("r", withMin(req(LabelHostname, corev1.NodeSelectorOpIn, "a b"), 2))
	assertInvalid(t, err, "r.key: kubernetes.io/hostname is restricted")
	assert.Contains(t, err.Error(), `; r.values[0]: invalid label value`)
	assert.Contains(t, err.Error(), `; r.minValues: cannot exceed the 1 values listed, got 2`)
	assert.Len(t, err.(interface{ Unwrap() []error }).Unwrap(), 3)
}
