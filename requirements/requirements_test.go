package requirements

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

func TestNewAndAdd(t *testing.T) {
	tests := []struct {
		name string
		reqs []*Requirement
		want string
	}{
		{"empty", nil, ""},
		{"distinct keys", []*Requirement{k(in, "a"), NewRequirement("j", exists)}, "j Exists, k In [a]"},
		{"same key intersects", []*Requirement{k(in, "a", "b", "c"), k(notIn, "b"), k(in, "c", "a", "d")}, "k In [a c]"},
		{"aliases intersect", []*Requirement{
			NewRequirement(api.LabelZone, in, "eastus-1", "eastus-2"),
			NewRequirement("failure-domain.beta.kubernetes.io/zone", in, "eastus-2", "eastus-3"),
		}, "topology.kubernetes.io/zone In [eastus-2]"},
		{"bounds accumulate", []*Requirement{k(gt, "4"), k(lt, "16"), k(notIn, "8")}, "k NotIn [8] Gte 5 Lte 15"},
		{"conflict becomes DoesNotExist", []*Requirement{k(in, "a"), k(in, "b")}, "k DoesNotExist"},
		{"nil skipped", []*Requirement{nil, k(in, "a"), nil}, "k In [a]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, New(tt.reqs...).String())
		})
	}
}

func TestAddLeavesStoredRequirementsAlone(t *testing.T) {
	zone := NewRequirement(api.LabelZone, in, "eastus-1", "eastus-2")
	rs := New(zone)
	rs.Add(NewRequirement(api.LabelZone, in, "eastus-2"))
	assert.Equal(t, []string{"eastus-1", "eastus-2"}, zone.Values())
	assert.Equal(t, []string{"eastus-2"}, rs[api.LabelZone].Values())
}

func TestGetAndHas(t *testing.T) {
	rs := New(NewRequirement(api.LabelZone, in, "eastus-1"))
	assert.True(t, rs.Has(api.LabelZone))
	assert.True(t, rs.Has("failure-domain.beta.kubernetes.io/zone"), "aliases are normalised")
	assert.False(t, rs.Has(api.LabelArch))
	assert.Equal(t, "topology.kubernetes.io/zone In [eastus-1]", rs.Get("failure-domain.beta.kubernetes.io/zone").String())
	undefined := rs.Get("beta.kubernetes.io/arch")
	assert.Equal(t, "kubernetes.io/arch Exists", undefined.String())
	assert.False(t, rs.Has(api.LabelArch), "Get does not define the key")

	var none Requirements
	assert.False(t, none.Has("k"))
	assert.Equal(t, "k Exists", none.Get("k").String())
	assert.Empty(t, none.Keys())
	assert.Empty(t, none.Labels())
	assert.Equal(t, "", none.String())
	assert.Empty(t, none.ToAPI())
}

func TestKeys(t *testing.T) {
	rs := New(NewRequirement("c", exists), NewRequirement("a", exists), NewRequirement("b", exists))
	assert.Equal(t, []string{"a", "b", "c"}, rs.Keys())
}

func TestLabels(t *testing.T) {
	rs := New(
		NewRequirement(api.LabelArch, in, api.ArchAMD64),
		NewRequirement(api.LabelZone, in, "eastus-1", "eastus-2"),
		NewRequirement(api.LabelOS, notIn, api.OSWindows),
		NewRequirement(api.LabelSKUCPU, gt, "4"),
		NewRequirement(api.LabelCapacityType, exists),
		NewRequirement("team", doesNotExist),
		NewRequirement(api.LabelNodePool, in, "default"),
	)
	assert.Equal(t, map[string]string{api.LabelArch: api.ArchAMD64, api.LabelNodePool: "default"}, rs.Labels())
}

func TestClone(t *testing.T) {
	rs := New(NewRequirementWithMinValues(api.LabelSKUFamily, in, ptr(2), "D", "E"), NewRequirement(api.LabelArch, in, "amd64"))
	c := rs.Clone()
	require.True(t, rs.Equal(c))

	c.Add(NewRequirement(api.LabelSKUFamily, in, "D"), NewRequirement(api.LabelZone, in, "eastus-1"))
	c[api.LabelArch].MinValues = ptr(5)
	assert.Equal(t, "karpenter.azure.com/sku-family In [D E] minValues 2, kubernetes.io/arch In [amd64]", rs.String())
	assert.Equal(t, "karpenter.azure.com/sku-family In [D] minValues 2, kubernetes.io/arch In [amd64] minValues 5, topology.kubernetes.io/zone In [eastus-1]", c.String())
	assert.False(t, rs.Equal(c))

	var none Requirements
	assert.NotNil(t, none.Clone(), "a clone can be added to")
}

func TestFromLabels(t *testing.T) {
	rs := FromLabels(map[string]string{"beta.kubernetes.io/arch": "amd64", api.LabelOS: "linux", "empty": ""})
	assert.Equal(t, `empty In [""], kubernetes.io/arch In [amd64], kubernetes.io/os In [linux]`, rs.String())
	assert.Equal(t, map[string]string{api.LabelArch: "amd64", api.LabelOS: "linux", "empty": ""}, rs.Labels())

	conflicting := FromLabels(map[string]string{"beta.kubernetes.io/arch": "arm64", api.LabelArch: "amd64"})
	assert.Equal(t, "kubernetes.io/arch DoesNotExist", conflicting.String())
}

func TestFromNodeSelector(t *testing.T) {
	rs := FromNodeSelector([]corev1.NodeSelectorRequirement{
		{Key: "failure-domain.beta.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"eastus-2", "eastus-1"}},
		{Key: api.LabelSKUCPU, Operator: corev1.NodeSelectorOpGt, Values: []string{"4"}},
		{Key: api.LabelSKUCPU, Operator: corev1.NodeSelectorOpLt, Values: []string{"16"}},
		{Key: "gpu", Operator: corev1.NodeSelectorOpDoesNotExist},
	})
	assert.Equal(t, "gpu DoesNotExist, karpenter.azure.com/sku-cpu Gte 5 Lte 15, topology.kubernetes.io/zone In [eastus-1 eastus-2]", rs.String())
}

func TestToAPIRoundTrip(t *testing.T) {
	in := []api.NodeSelectorRequirementWithMinValues{
		{Key: api.LabelZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"eastus-2", "eastus-1"}},
		{Key: api.LabelSKUFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"D", "E"}, MinValues: ptr(2)},
		{Key: api.LabelSKUCPU, Operator: corev1.NodeSelectorOpGt, Values: []string{"4"}},
		{Key: api.LabelSKUCPU, Operator: corev1.NodeSelectorOpLt, Values: []string{"16"}},
		{Key: api.LabelSKUCPU, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"8"}},
		{Key: api.LabelCapacityType, Operator: corev1.NodeSelectorOpExists},
		{Key: "gpu", Operator: corev1.NodeSelectorOpDoesNotExist},
		{Key: api.LabelOS, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"windows"}},
	}
	rs := FromAPI(in)
	out := rs.ToAPI()
	assert.Equal(t, []api.NodeSelectorRequirementWithMinValues{
		{Key: "gpu", Operator: corev1.NodeSelectorOpDoesNotExist},
		{Key: api.LabelSKUCPU, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"8"}},
		{Key: api.LabelSKUCPU, Operator: Gte, Values: []string{"5"}},
		{Key: api.LabelSKUCPU, Operator: Lte, Values: []string{"15"}},
		{Key: api.LabelSKUFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"D", "E"}, MinValues: ptr(2)},
		{Key: api.LabelCapacityType, Operator: corev1.NodeSelectorOpExists},
		{Key: api.LabelOS, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"windows"}},
		{Key: api.LabelZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"eastus-1", "eastus-2"}},
	}, out)
	assert.True(t, rs.Equal(FromAPI(out)), "FromAPI(ToAPI(rs)) == rs")
	assert.Equal(t, "eastus-2", in[0].Values[0], "FromAPI leaves its input alone")
}

// TestDeterministicOutput builds the same requirements many times from maps (random iteration order)
// and checks every rendering is byte-identical.
func TestDeterministicOutput(t *testing.T) {
	first := instanceType(8)
	want, wantAPI := first.String(), first.ToAPI()
	for range 50 {
		rs := instanceType(8)
		assert.Equal(t, want, rs.String())
		assert.Equal(t, wantAPI, rs.ToAPI())
		assert.True(t, first.Equal(rs))
	}
}
