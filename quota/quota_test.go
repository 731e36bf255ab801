package quota_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/quota"
)

func eastus(t *testing.T) *instancetype.Catalogue {
	t.Helper()
	cat, err := instancetype.BuildDefault("eastus", api.DefaultClusterNetwork())
	require.NoError(t, err)
	return cat
}

// availability counts the available offerings per capacity type of the types whose family is
// (or, with !in, is not) family.
func availability(cat *instancetype.Catalogue, family string, in bool) map[string]int {
	out := map[string]int{}
	for _, it := range cat.InstanceTypes {
		if (it.SKU.Family == family) != in {
			continue
		}
		for _, o := range it.Offerings {
			if o.Available {
				out[o.CapacityType]++
			}
		}
	}
	return out
}

// upstream: pkg/providers/quota/quota.go (family quota, fail open) and
// pkg/providers/instancetype/instancetypes.go (quota applies to on-demand only; spot uses its own).
func TestApply(t *testing.T) {
	cat := eastus(t)
	const fam = "standardDav6Family"
	before, others := availability(cat, fam, true), availability(cat, fam, false)
	require.Positive(t, before[api.CapacityTypeOnDemand], "the catalogue has %s sizes", fam)

	full := quota.Apply(cat, quota.NewTable([]quota.Usage{{Name: fam, Current: 100, Limit: 100}, {Name: "cores", Current: 10, Limit: 1000}}))
	assert.Zero(t, availability(full, fam, true)[api.CapacityTypeOnDemand], "no on-demand offering of a full family")
	assert.Equal(t, before[api.CapacityTypeSpot], availability(full, fam, true)[api.CapacityTypeSpot], "spot uses no family quota")
	assert.Equal(t, others, availability(full, fam, false), "other families are untouched")
	assert.Equal(t, before, availability(cat, fam, true), "the input catalogue is not modified")

	it, ok := full.Find("Standard_D4as_v6")
	require.True(t, ok)
	for _, o := range it.Offerings {
		if o.CapacityType == api.CapacityTypeOnDemand {
			assert.Equal(t, "vCPU quota standardDav6Family: 100 of 100 used, Standard_D4as_v6 needs 4", o.UnavailableReason)
		}
	}

	// 6 vCPUs left: sizes up to 4 vCPUs still fit, 8 and more do not.
	partial := quota.Apply(cat, quota.NewTable([]quota.Usage{{Name: fam, Current: 94, Limit: 100}}))
	for _, it := range partial.InstanceTypes {
		if it.SKU.Family != fam {
			continue
		}
		for _, o := range it.Offerings {
			if o.CapacityType == api.CapacityTypeOnDemand {
				assert.Equal(t, it.SKU.VCPUs <= 6, o.Available, "%s %s", it.Name, o.Zone)
			}
		}
	}

	regional := quota.Apply(cat, quota.NewTable([]quota.Usage{{Name: "cores", Current: 350, Limit: 350}}))
	assert.Zero(t, availability(regional, fam, false)[api.CapacityTypeOnDemand], "the regional total stops every family")
	spot := quota.Apply(cat, quota.NewTable([]quota.Usage{{Name: "lowPriorityCores", Current: 100, Limit: 100}}))
	assert.Zero(t, availability(spot, fam, false)[api.CapacityTypeSpot])
	assert.Equal(t, others[api.CapacityTypeOnDemand], availability(spot, fam, false)[api.CapacityTypeOnDemand])

	open := quota.Apply(cat, quota.NewTable([]quota.Usage{{Name: "standardOtherFamily", Current: 5, Limit: 5}}))
	assert.Equal(t, before, availability(open, fam, true), "a family without an entry fails open")
	assert.Same(t, cat, quota.Apply(cat, nil))
}

// The pending pod's reason names the exhausted quota.
func TestPendingReasonNamesQuota(t *testing.T) {
	cat := quota.Apply(eastus(t), quota.NewTable([]quota.Usage{{Name: "cores", Current: 20, Limit: 20}}))
	pool := &api.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "general"}, Spec: api.NodePoolSpec{Template: api.NodeClaimTemplate{
		Spec: api.NodeClaimTemplateSpec{NodeClassRef: &api.NodeClassReference{Name: "default"}, Requirements: []api.NodeSelectorRequirementWithMinValues{
			{Key: api.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{api.CapacityTypeOnDemand}},
			{Key: api.LabelSKUFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"D"}},
		}}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}}
	plan, err := provisioner.Solve(provisioner.Input{Pods: []*corev1.Pod{pod},
		NodePools: []provisioner.NodePoolInput{{NodePool: pool, InstanceTypes: cat.InstanceTypes}}})
	require.NoError(t, err)
	require.Len(t, plan.Unschedulable, 1)
	assert.Contains(t, plan.Unschedulable[0].Reason, "vCPU quota cores: 20 of 20 used")
}
