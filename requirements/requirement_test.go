package requirements

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

func ptr[T any](v T) *T { return &v }

func TestNewRequirement(t *testing.T) {
	tests := []struct {
		name       string
		key        string
		op         corev1.NodeSelectorOperator
		values     []string
		wantKey    string
		wantOp     corev1.NodeSelectorOperator
		wantValues []string
		wantGte    *int64
		wantLte    *int64
	}{
		{"In sorts and dedupes", "k", in, []string{"c", "a", "c", "b"}, "k", in, []string{"a", "b", "c"}, nil, nil},
		{"In single value", "k", in, []string{"a"}, "k", in, []string{"a"}, nil, nil},
		{"In no values", "k", in, nil, "k", doesNotExist, nil, nil, nil},
		{"NotIn", "k", notIn, []string{"b", "a"}, "k", notIn, []string{"a", "b"}, nil, nil},
		{"NotIn no values", "k", notIn, nil, "k", exists, nil, nil, nil},
		{"Exists", "k", exists, []string{"ignored"}, "k", exists, nil, nil, nil},
		{"DoesNotExist", "k", doesNotExist, []string{"ignored"}, "k", doesNotExist, nil, nil, nil},
		{"Gt N is Gte N+1", "k", gt, []string{"4"}, "k", Gte, nil, ptr[int64](5), nil},
		{"Lt N is Lte N-1", "k", lt, []string{"16"}, "k", Lte, nil, nil, ptr[int64](15)},
		{"Gte", "k", Gte, []string{"-3"}, "k", Gte, nil, ptr[int64](-3), nil},
		{"Lte", "k", Lte, []string{"+7"}, "k", Lte, nil, nil, ptr[int64](7)},
		{"Gt MaxInt64", "k", gt, []string{strconv.FormatInt(math.MaxInt64, 10)}, "k", doesNotExist, nil, nil, nil},
		{"Lt MinInt64", "k", lt, []string{strconv.FormatInt(math.MinInt64, 10)}, "k", doesNotExist, nil, nil, nil},
		{"Gt non-integer", "k", gt, []string{"4.5"}, "k", doesNotExist, nil, nil, nil},
		{"Gte empty", "k", Gte, []string{""}, "k", doesNotExist, nil, nil, nil},
		{"Lt no operand", "k", lt, nil, "k", doesNotExist, nil, nil, nil},
		{"unknown operator", "k", "Between", []string{"1", "2"}, "k", doesNotExist, nil, nil, nil},
		{"empty operator", "k", "", []string{"1"}, "k", doesNotExist, nil, nil, nil},
		{"zone alias", "failure-domain.beta.kubernetes.io/zone", in, []string{"eastus-1"}, api.LabelZone, in, []string{"eastus-1"}, nil, nil},
		{"region alias", "failure-domain.beta.kubernetes.io/region", in, []string{"eastus"}, api.LabelRegion, in, []string{"eastus"}, nil, nil},
		{"arch alias", "beta.kubernetes.io/arch", in, []string{"amd64"}, api.LabelArch, in, []string{"amd64"}, nil, nil},
		{"os alias", "beta.kubernetes.io/os", notIn, []string{"windows"}, api.LabelOS, notIn, []string{"windows"}, nil, nil},
		{"instance-type alias", "beta.kubernetes.io/instance-type", exists, nil, api.LabelInstanceType, exists, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRequirement(tt.key, tt.op, tt.values...)
			gte, lte := r.Bounds()
			assert.Equal(t, tt.wantKey, r.Key)
			assert.Equal(t, tt.wantOp, r.Operator())
			assert.Equal(t, tt.wantValues, r.Values())
			assert.Equal(t, tt.wantGte, gte)
			assert.Equal(t, tt.wantLte, lte)
			assert.Nil(t, r.MinValues)
		})
	}
}

func TestNewRequirementKeepsCallerSlice(t *testing.T) {
	values := []string{"c", "a", "c"}
	r := NewRequirement("k", in, values...)
	assert.Equal(t, []string{"c", "a", "c"}, values, "constructor must not sort the caller's slice")
	values[0] = "z"
	assert.Equal(t, []string{"a", "c"}, r.Values(), "requirement must not alias the caller's slice")

	single := []string{"a"}
	r = NewRequirement("k", in, single...)
	single[0] = "z"
	assert.True(t, r.Has("a"))

	got := r.Values()
	got[0] = "z"
	assert.True(t, r.Has("a"), "Values returns a copy")
}

func TestNewRequirementWithMinValues(t *testing.T) {
	r := NewRequirementWithMinValues(api.LabelSKUFamily, in, ptr(3), "D", "E", "F")
	assert.Equal(t, ptr(3), r.MinValues)
	assert.Equal(t, "karpenter.azure.com/sku-family In [D E F] minValues 3", r.String())
}

func TestHas(t *testing.T) {
	tests := []struct {
		name string
		r    *Requirement
		yes  []string
		no   []string
	}{
		{"In", k(in, "a", "5"), []string{"a", "5"}, []string{"b", "05", ""}},
		{"NotIn", k(notIn, "a"), []string{"b", "", "5"}, []string{"a"}},
		{"Exists", k(exists), []string{"a", "", "5"}, nil},
		{"DoesNotExist", k(doesNotExist), nil, []string{"a", "", "5"}},
		{"Gt", k(gt, "4"), []string{"5", "05", "+5", "1000"}, []string{"4", "-5", "a", "", "4.5", "99999999999999999999"}},
		{"Lt", k(lt, "4"), []string{"3", "-100"}, []string{"4", "a"}},
		{"Gte", k(Gte, "4"), []string{"4", "5"}, []string{"3"}},
		{"Lte", k(Lte, "4"), []string{"4", "-1"}, []string{"5"}},
		{"large In set bisects", k(in, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"), []string{"a", "e", "j"}, []string{"k", "0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range tt.yes {
				assert.Truef(t, tt.r.Has(v), "%s should allow %q", tt.r, v)
			}
			for _, v := range tt.no {
				assert.Falsef(t, tt.r.Has(v), "%s should not allow %q", tt.r, v)
			}
		})
	}
}

func TestLen(t *testing.T) {
	assert.Equal(t, 2, k(in, "a", "b", "a").Len())
	assert.Equal(t, 0, k(doesNotExist).Len())
	assert.Equal(t, math.MaxInt, k(notIn, "a").Len())
	assert.Equal(t, math.MaxInt, k(exists).Len())
	assert.Equal(t, math.MaxInt, k(Gte, "3").Intersection(k(Lte, "3")).Len(), `"3" and "03" both match`)
}

func TestAny(t *testing.T) {
	maxInt := strconv.FormatInt(math.MaxInt64, 10)
	tests := []struct {
		name string
		r    *Requirement
		want string
	}{
		{"In gives the smallest", k(in, "c", "a", "b"), "a"},
		{"DoesNotExist gives nothing", k(doesNotExist), ""},
		{"Exists gives zero", k(exists), "0"},
		{"NotIn skips excluded integers", k(notIn, "0", "1", "a"), "2"},
		{"Gt starts at the bound", k(gt, "4"), "5"},
		{"Lt above zero gives zero", k(lt, "4"), "0"},
		{"Lt below zero gives the bound", k(lt, "-4"), "-5"},
		{"range across zero gives zero", k(Gte, "-3").Intersection(k(Lte, "3")), "0"},
		{"excluded zero walks up", k(Gte, "-3").Intersection(k(Lte, "3")).Intersection(k(notIn, "0")), "1"},
		{"excluded top walks down", k(Gte, "-3").Intersection(k(Lte, "0")).Intersection(k(notIn, "0")), "-1"},
		{"fully excluded range", k(Gte, "3").Intersection(k(Lte, "4")).Intersection(k(notIn, "3", "4")), ""},
		{"top of int64", k(Gte, maxInt), maxInt},
		{"bottom of int64", k(Lte, strconv.FormatInt(math.MinInt64, 10)), strconv.FormatInt(math.MinInt64, 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.r.Any()
			assert.Equal(t, tt.want, got)
			if got != "" {
				assert.True(t, tt.r.Has(got), "Any returns an allowed value")
			}
		})
	}
}

func TestAllowsAbsent(t *testing.T) {
	assert.True(t, k(notIn, "a").AllowsAbsent())
	assert.True(t, k(doesNotExist).AllowsAbsent())
	assert.False(t, k(in, "a").AllowsAbsent())
	assert.False(t, k(exists).AllowsAbsent())
	assert.False(t, k(gt, "1").AllowsAbsent())
	assert.False(t, k(notIn, "5").Intersection(k(gt, "1")).AllowsAbsent(), "a bound needs the label")
}

func TestRequirementString(t *testing.T) {
	tests := []struct {
		r    *Requirement
		want string
	}{
		{k(in, "b", "a"), "k In [a b]"},
		{k(in, "1", "2", "3", "4", "5", "6", "7"), "k In [1 2 3 4 5 and 2 others]"},
		{k(in, "1", "2", "3", "4", "5"), "k In [1 2 3 4 5]"},
		{k(notIn, "a"), "k NotIn [a]"},
		{k(exists), "k Exists"},
		{k(doesNotExist), "k DoesNotExist"},
		{k(gt, "4").Intersection(k(lt, "16")).Intersection(k(notIn, "8")), "k NotIn [8] Gte 5 Lte 15"},
		{NewRequirementWithMinValues("k", exists, ptr(2)), "k Exists minValues 2"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.r.String())
	}
}

func TestWithMinValues(t *testing.T) {
	r := k(in, "a", "b")
	c := r.WithMinValues(ptr(2))
	assert.Nil(t, r.MinValues, "original unchanged")
	assert.Equal(t, ptr(2), c.MinValues)
	assert.Equal(t, r.Values(), c.Values())
}

func TestEqual(t *testing.T) {
	assert.True(t, k(in, "b", "a").Equal(k(in, "a", "b", "a")))
	assert.True(t, k(gt, "3").Equal(k(Gte, "4")), "Gt 3 and Gte 4 are one requirement")
	assert.False(t, k(in, "a").Equal(k(notIn, "a")))
	assert.False(t, k(in, "a").Equal(NewRequirement("j", in, "a")))
	assert.False(t, k(Gte, "4").Equal(k(Lte, "4")))
	assert.False(t, k(exists).Equal(NewRequirementWithMinValues("k", exists, ptr(1))))
	assert.True(t, NewRequirementWithMinValues("k", exists, ptr(1)).Equal(NewRequirementWithMinValues("k", exists, ptr(1))))
	assert.False(t, k(exists).Equal(nil))
}

func TestRequirementToAPIRoundTrip(t *testing.T) {
	reqs := []*Requirement{
		k(in, "b", "a"),
		k(notIn, "a"),
		k(exists),
		k(doesNotExist),
		k(gt, "3"),
		k(lt, "3"),
		k(gt, "4").Intersection(k(lt, "16")).Intersection(k(notIn, "8", "x")),
		NewRequirementWithMinValues("k", in, ptr(2), "a", "b", "c"),
		NewRequirementWithMinValues("k", notIn, ptr(2), "3").Intersection(k(Lte, "9")),
	}
	for _, r := range reqs {
		t.Run(r.String(), func(t *testing.T) {
			back := FromAPI(r.ToAPI())
			assert.Len(t, back, 1)
			assert.Truef(t, r.Equal(back["k"]), "%s round-tripped to %s", r, back["k"])
		})
	}
}

func TestRequirementToAPIShape(t *testing.T) {
	r := NewRequirementWithMinValues("k", gt, ptr(2), "4").Intersection(k(lt, "16")).Intersection(k(notIn, "8"))
	got := r.ToAPI()
	assert.Equal(t, []api.NodeSelectorRequirementWithMinValues{
		{Key: "k", Operator: notIn, Values: []string{"8"}, MinValues: ptr(2)},
		{Key: "k", Operator: Gte, Values: []string{"5"}, MinValues: ptr(2)},
		{Key: "k", Operator: Lte, Values: []string{"15"}, MinValues: ptr(2)},
	}, got)
	*got[0].MinValues = 9
	got[0].Values[0] = "z"
	assert.Equal(t, ptr(2), r.MinValues, "output shares no pointer")
	assert.Equal(t, []string{"8"}, r.Values(), "output shares no slice")
}
