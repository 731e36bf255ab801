package consolidation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

// fxMinSavingsCluster: node n (4 CPU, 4Gi: $0.8/h) holds one 3-CPU pod; the only cheaper type that
// holds it has 1Gi less ($0.7/h), so a replace saves $0.1/h, 12.5 % of the node's price.
func fxMinSavingsCluster(opts Options) Input {
	types := []*instancetype.InstanceType{
		fxType(fxTypeSpec{name: "big", cpu: "4", memory: "4Gi"}),
		fxType(fxTypeSpec{name: "near", cpu: "4", memory: "3Gi"}),
		fxType(fxTypeSpec{name: "half", cpu: "2", memory: "2Gi"}),
	}
	c := newFxCluster(types, fxPool("default", fxOD))
	c.opts = opts
	c.node("n", "", "big", fxZ1, fxOD, fxPod("p", "3", "1Gi"))
	return c.input()
}

// TestMinReplaceSavings: a replace saving less than MinReplaceSavings of the removed nodes' price
// is not proposed; at or under the saving it is, as with the zero value (Karpenter's rule).
func TestMinReplaceSavings(t *testing.T) {
	tests := []struct {
		name    string
		min     float64
		replace bool
	}{
		{name: "zero: any saving (Karpenter)", min: 0, replace: true},
		{name: "10 %: 12.5 % is enough", min: 0.1, replace: true},
		{name: "20 %: 12.5 % is not", min: 0.2, replace: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := Decide(fxMinSavingsCluster(Options{MinReplaceSavings: tc.min}))
			require.NoError(t, err)
			if !tc.replace {
				assert.Empty(t, plan.Commands, "%v", fxSummary(plan))
				return
			}
			require.Len(t, plan.Commands, 1, "%v", fxSummary(plan))
			cmd := plan.Commands[0]
			assert.Equal(t, CommandReplace, cmd.Kind)
			assert.Equal(t, []string{"n"}, cmd.Nodes)
			require.NotNil(t, cmd.Replacement)
			assert.Equal(t, "near", cmd.Replacement.InstanceType)
			assert.InDelta(t, 0.1, cmd.SavingsPerHour, 1e-9)
		})
	}
}

// TestMinReplaceSavingsTrimsOptions: when the replacement's launch list holds a type that saves
// enough and one that saves too little, MinReplaceSavings drops the latter from the list instead of
// refusing the replace for it (the savings of a replace are counted at its dearest option). The
// big node of the sixth session's scale-down runs stayed for this: its pods fit a type at 54 % of
// its price, but the list also held types at 99 %.
func TestMinReplaceSavingsTrimsOptions(t *testing.T) {
	types := []*instancetype.InstanceType{
		fxType(fxTypeSpec{name: "big", cpu: "4", memory: "4Gi"}),      // $0.80/h
		fxType(fxTypeSpec{name: "near", cpu: "4", memory: "3Gi"}),     // $0.70/h: saves 12.5 %
		fxType(fxTypeSpec{name: "close", cpu: "4", memory: "3840Mi"}), // $0.775/h: saves 3.1 %
	}
	build := func(min float64) Input {
		c := newFxCluster(types, fxPool("default", fxOD))
		c.opts = Options{MinReplaceSavings: min}
		c.node("n", "", "big", fxZ1, fxOD, fxPod("p", "3", "1Gi"))
		return c.input()
	}
	tests := []struct {
		name    string
		min     float64
		options []string
		savings float64
	}{
		{name: "zero: every cheaper type, savings at the dearest (Karpenter)", min: 0, options: []string{"near", "close"}, savings: 0.025},
		{name: "10 %: the type saving too little is dropped", min: 0.1, options: []string{"near"}, savings: 0.1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := Decide(build(tc.min))
			require.NoError(t, err)
			require.Len(t, plan.Commands, 1, "%v", fxSummary(plan))
			cmd := plan.Commands[0]
			require.NotNil(t, cmd.Replacement)
			assert.Equal(t, tc.options, cmd.Replacement.InstanceTypeOptions)
			assert.InDelta(t, tc.savings, cmd.SavingsPerHour, 1e-9)
		})
	}
	plan, err := Decide(build(0.2))
	require.NoError(t, err)
	assert.Empty(t, plan.Commands, "20 %: no type saves enough")
}

// TestPriceTrimsToMinSavings: the price cap is the removed nodes' price less MinReplaceSavings of
// it; a replacement whose cheaper types all save too little is refused for that, by name, not as
// "no instance type is cheaper".
func TestPriceTrimsToMinSavings(t *testing.T) {
	pool := fxPool("default", fxOD)
	in := newFxCluster(fxSizedTypes(3, 4, 8), pool).input()
	book := newPriceBook(&in)
	claim := func(sizes ...int) provisioner.NodeClaim {
		nc := provisioner.NodeClaim{Name: "a", NodePool: pool.Name, Zone: fxZ1, CapacityType: fxOD}
		for _, i := range sizes {
			nc.InstanceTypeOptions = append(nc.InstanceTypeOptions, fxSizeName(i))
		}
		nc.InstanceType = nc.InstanceTypeOptions[0]
		return nc
	}
	half := replaceRule{below: 1.6, minSavings: 0.5, removedTypes: map[string]float64{fxSizeName(8): 1.6}} // ceiling $0.8/h

	out, worst, why := book.priceAll([]provisioner.NodeClaim{claim(3, 4, 8)}, half)
	require.Empty(t, why)
	assert.Equal(t, []string{fxSizeName(3)}, out[0].InstanceTypeOptions, "size-04 ($0.8/h) saves only 50 %, not more")
	assert.InDelta(t, 0.6, worst, 1e-9)

	_, _, why = book.priceAll([]provisioner.NodeClaim{claim(4, 8)}, half)
	assert.Equal(t, "no instance type saves MinReplaceSavings of the removed nodes' price", why)
	_, _, why = book.priceAll([]provisioner.NodeClaim{claim(8)}, half)
	assert.Equal(t, "no instance type is cheaper than the removed nodes", why)
}
