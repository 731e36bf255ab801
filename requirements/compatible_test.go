package requirements

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
)

func TestCompatible(t *testing.T) {
	d8 := instanceType(8) // sku-cpu 8, zones eastus-1..3, spot and on-demand, no GPU name label
	delete(d8, api.LabelSKUGPUName)
	tests := []struct {
		name           string
		rs             Requirements
		o              Requirements
		allowUndefined sets.Set[string]
		wantKey        string // "" means compatible
		wantReason     Reason
	}{
		{"typical NodePool", d8, nodePool(), api.WellKnownLabels(), "", 0},
		{"empty incoming", d8, New(), nil, "", 0},
		{"nil incoming", d8, nil, nil, "", 0},
		{"nil receiver, negative incoming", nil, New(NewRequirement("team", notIn, "a")), nil, "", 0},

		// Well-known labels may be undefined on the receiving side.
		{"well-known undefined is allowed", d8, New(NewRequirement(api.LabelSKUGPUName, in, "A100")), api.WellKnownLabels(), "", 0},
		{"well-known undefined without allowance", d8, New(NewRequirement(api.LabelSKUGPUName, in, "A100")), nil, api.LabelSKUGPUName, ReasonUndefined},
		{"allowed undefined still must intersect when defined", d8, New(NewRequirement(api.LabelArch, in, api.ArchARM64)), api.WellKnownLabels(), api.LabelArch, ReasonDisjoint},
		{"custom label undefined", d8, New(NewRequirement("team", in, "a")), api.WellKnownLabels(), "team", ReasonUndefined},
		{"custom Exists undefined", d8, New(NewRequirement("team", exists)), api.WellKnownLabels(), "team", ReasonUndefined},
		{"custom bound undefined", d8, New(NewRequirement("team-size", gt, "1")), api.WellKnownLabels(), "team-size", ReasonUndefined},

		// A node without the label meets NotIn and DoesNotExist.
		{"NotIn on undefined key", d8, New(NewRequirement("team", notIn, "a")), nil, "", 0},
		{"DoesNotExist on undefined key", d8, New(NewRequirement("team", doesNotExist)), nil, "", 0},
		{"DoesNotExist on defined key", d8, New(NewRequirement(api.LabelArch, doesNotExist)), nil, api.LabelArch, ReasonDisjoint},
		{"NotIn vs DoesNotExist", New(NewRequirement("team", doesNotExist)), New(NewRequirement("team", notIn, "a")), nil, "", 0},

		// Aliases meet their stable key.
		{"zone alias matches", d8, New(NewRequirement("failure-domain.beta.kubernetes.io/zone", in, "eastus-2")), nil, "", 0},
		{"zone alias conflicts under the stable key", d8, New(NewRequirement("failure-domain.beta.kubernetes.io/zone", in, "westus-1")), nil, api.LabelZone, ReasonDisjoint},
		{"alias on the receiving side", FromLabels(map[string]string{"beta.kubernetes.io/arch": "arm64"}), New(NewRequirement(api.LabelArch, in, "arm64")), nil, "", 0},

		// Integer bounds on numeric labels.
		{"cpu in range", FromLabels(map[string]string{api.LabelSKUCPU: "8"}), New(NewRequirement(api.LabelSKUCPU, gt, "4"), NewRequirement(api.LabelSKUCPU, lt, "16")), nil, "", 0},
		{"cpu above range", FromLabels(map[string]string{api.LabelSKUCPU: "32"}), New(NewRequirement(api.LabelSKUCPU, gt, "4"), NewRequirement(api.LabelSKUCPU, lt, "16")), nil, api.LabelSKUCPU, ReasonDisjoint},
		{"cpu at exclusive bound", FromLabels(map[string]string{api.LabelSKUCPU: "4"}), New(NewRequirement(api.LabelSKUCPU, gt, "4")), nil, api.LabelSKUCPU, ReasonDisjoint},
		{"cpu at inclusive bound", FromLabels(map[string]string{api.LabelSKUCPU: "4"}), New(NewRequirement(api.LabelSKUCPU, Gte, "4")), nil, "", 0},
		{"range against range", New(NewRequirement(api.LabelSKUMemory, Gte, "8192")), New(NewRequirement(api.LabelSKUMemory, lt, "8192")), nil, api.LabelSKUMemory, ReasonDisjoint},

		// The smallest conflicting key is reported, whatever the map order.
		{"first of several conflicts", d8, New(NewRequirement("zzz", in, "a"), NewRequirement(api.LabelArch, in, "arm64"), NewRequirement("aaa", in, "b")), nil, "aaa", ReasonUndefined},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.rs.Compatible(tt.o, tt.allowUndefined)
			assert.Equal(t, tt.wantKey == "", tt.rs.IsCompatible(tt.o, tt.allowUndefined), "IsCompatible agrees")
			if tt.wantKey == "" {
				assert.NoError(t, err)
				assert.Empty(t, tt.rs.Incompatibilities(tt.o, tt.allowUndefined))
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrIncompatible)
			var incompatible *IncompatibleError
			require.ErrorAs(t, err, &incompatible)
			assert.Equal(t, tt.wantKey, incompatible.Key)
			assert.Equal(t, tt.wantReason, incompatible.Reason)
			assert.Equal(t, tt.o[tt.wantKey], incompatible.Incoming)
			assert.Equal(t, tt.rs[tt.wantKey], incompatible.Existing)
			all := tt.rs.Incompatibilities(tt.o, tt.allowUndefined)
			require.NotEmpty(t, all)
			assert.Equal(t, incompatible, all[0])
		})
	}
}

func TestCompatibleIsDeterministic(t *testing.T) {
	o := New()
	for i := range 20 {
		o.Add(NewRequirement(fmt.Sprintf("custom/%02d", i), in, "x"))
	}
	for range 50 {
		err := New().Compatible(o, nil)
		assert.EqualError(t, err, `requirements: label "custom/00" is not defined, but custom/00 In [x] needs it`)
	}
}

func TestIncompatibilities(t *testing.T) {
	d8 := instanceType(8)
	o := New(
		NewRequirement("team", in, "a"),
		NewRequirement(api.LabelArch, in, api.ArchARM64),
		NewRequirement(api.LabelSKUCPU, gt, "16"),
		NewRequirement(api.LabelZone, in, "eastus-1"),
	)
	got := d8.Incompatibilities(o, api.WellKnownLabels())
	require.Len(t, got, 3)
	assert.Equal(t, []string{api.LabelSKUCPU, api.LabelArch, "team"}, []string{got[0].Key, got[1].Key, got[2].Key})
	assert.Equal(t, []Reason{ReasonDisjoint, ReasonDisjoint, ReasonUndefined}, []Reason{got[0].Reason, got[1].Reason, got[2].Reason})
}

func TestRequirementsIntersects(t *testing.T) {
	d8 := instanceType(8)
	tests := []struct {
		name    string
		o       Requirements
		wantKey string
	}{
		{"undefined keys are ignored", New(NewRequirement("team", in, "a")), ""},
		{"shared keys intersect", New(NewRequirement(api.LabelZone, in, "eastus-3", "westus-1")), ""},
		{"shared keys conflict", New(NewRequirement(api.LabelZone, in, "westus-1"), NewRequirement("team", in, "a")), api.LabelZone},
		{"smallest conflicting key", New(NewRequirement(api.LabelZone, in, "westus-1"), NewRequirement(api.LabelArch, in, "arm64")), api.LabelArch},
		{"both negative", New(NewRequirement("team", doesNotExist)), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := d8.Clone()
			rs.Add(NewRequirement("team", notIn, "b"))
			err := rs.Intersects(tt.o)
			if tt.wantKey == "" {
				assert.NoError(t, err)
				return
			}
			var incompatible *IncompatibleError
			require.ErrorAs(t, err, &incompatible)
			assert.ErrorIs(t, err, ErrIncompatible)
			assert.Equal(t, tt.wantKey, incompatible.Key)
			assert.Equal(t, ReasonDisjoint, incompatible.Reason)
		})
	}
}

// TestMinValuesPropagation follows minValues from a NodePool through a pod's narrowing to the NodeClaim
// requirements: the larger minValues survives each intersection, and Compatible ignores it (it limits
// the launch list, not one instance type).
func TestMinValuesPropagation(t *testing.T) {
	pool := FromAPI([]api.NodeSelectorRequirementWithMinValues{
		{Key: api.LabelSKUFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"D", "E", "F"}, MinValues: ptr(2)},
		{Key: api.LabelInstanceType, Operator: corev1.NodeSelectorOpExists, MinValues: ptr(10)},
	})
	claim := pool.Clone()
	claim.Add(
		NewRequirement(api.LabelSKUFamily, notIn, "F"),
		NewRequirementWithMinValues(api.LabelInstanceType, notIn, ptr(3), "Standard_D2s_v5"),
	)
	assert.Equal(t, ptr(2), claim[api.LabelSKUFamily].MinValues)
	assert.Equal(t, ptr(10), claim[api.LabelInstanceType].MinValues)
	assert.Equal(t, []string{"D", "E"}, claim[api.LabelSKUFamily].Values())
	assert.NoError(t, instanceType(8).Compatible(claim, api.WellKnownLabels()))

	assert.Equal(t, []api.NodeSelectorRequirementWithMinValues{
		{Key: api.LabelSKUFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"D", "E"}, MinValues: ptr(2)},
		{Key: api.LabelInstanceType, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"Standard_D2s_v5"}, MinValues: ptr(10)},
	}, claim.ToAPI())
	assert.Equal(t, ptr(2), pool[api.LabelSKUFamily].MinValues, "the pool is untouched")
	assert.Equal(t, []string{"D", "E", "F"}, pool[api.LabelSKUFamily].Values())
}

func TestIncompatibleErrorMessages(t *testing.T) {
	undefined := &IncompatibleError{Key: "team", Reason: ReasonUndefined, Incoming: NewRequirement("team", in, "a")}
	assert.Equal(t, `requirements: label "team" is not defined, but team In [a] needs it`, undefined.Error())
	disjoint := &IncompatibleError{Key: "k", Reason: ReasonDisjoint, Existing: k(in, "a"), Incoming: k(in, "b")}
	assert.Equal(t, `requirements: label "k": k In [b] does not intersect k In [a]`, disjoint.Error())
	wrapped := fmt.Errorf("instance type Standard_D8s_v5: %w", disjoint)
	assert.ErrorIs(t, wrapped, ErrIncompatible)
	assert.False(t, errors.Is(errors.New("other"), ErrIncompatible))
	assert.Equal(t, "undefined", ReasonUndefined.String())
	assert.Equal(t, "disjoint", ReasonDisjoint.String())
	assert.Equal(t, "Reason(7)", Reason(7).String())
}

func TestCompatibleAllocations(t *testing.T) {
	d8, pool := instanceType(8), nodePool()
	wellKnown := api.WellKnownLabels()
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = d8.Compatible(pool, wellKnown) }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { d8.IsCompatible(pool, wellKnown) }))
}
