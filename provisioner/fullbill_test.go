package provisioner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/instancetype"
)

// vmOnly returns copies of types whose offerings are priced at the VM alone, as napkit priced them
// before it counted managed OS disks.
func vmOnly(types []*instancetype.InstanceType) []*instancetype.InstanceType {
	out := make([]*instancetype.InstanceType, len(types))
	for i, it := range types {
		c := *it
		c.Offerings = make(instancetype.Offerings, len(it.Offerings))
		for j, o := range it.Offerings {
			o.Price, o.DiskPrice = o.VMPrice, 0
			c.Offerings[j] = o
		}
		out[i] = &c
	}
	return out
}

// fullBill prices a plan's NodeClaims on the full catalogue (VM + managed OS disk).
func fullBill(t *testing.T, plan *Plan, types []*instancetype.InstanceType) float64 {
	t.Helper()
	byName := map[string]*instancetype.InstanceType{}
	for _, it := range types {
		byName[it.Name] = it
	}
	total := 0.0
	for _, nc := range plan.NodeClaims {
		it := byName[nc.InstanceType]
		require.NotNil(t, it, nc.InstanceType)
		found := false
		for _, o := range it.Offerings {
			if o.Zone == nc.Zone && o.CapacityType == nc.CapacityType {
				total, found = total+o.Price, true
				break
			}
		}
		require.True(t, found, "%s %s %s", nc.InstanceType, nc.Zone, nc.CapacityType)
	}
	return total
}

// TestFullBillGeneric5k is the acceptance check on the 5,000 generic-pod benchmark: the plan
// made on full prices (VM + managed OS disk) costs less on the full bill than the plan made on VM
// prices alone (what napkit did before), uses fewer nodes, and stays within 1.10x of the full-bill
// lower bound.
func TestFullBillGeneric5k(t *testing.T) {
	full := eastusTypes(t)
	pools := benchPool(t)
	before := solveOrFail(t, Input{Pods: genericPods(5000),
		NodePools: []NodePoolInput{{NodePool: pools[0].NodePool, InstanceTypes: vmOnly(full)}}})
	after := solveOrFail(t, Input{Pods: genericPods(5000), NodePools: pools})
	require.Empty(t, before.Unschedulable)
	require.Empty(t, after.Unschedulable)

	beforeBill := fullBill(t, before, full)
	afterBill := fullBill(t, after, full)
	t.Logf("VM-priced plan: %d nodes, $%.2f/h VM, $%.2f/h full bill", len(before.NodeClaims), before.Cost.PricePerHour, beforeBill)
	t.Logf("full-priced plan: %d nodes, $%.2f/h full bill (VM $%.2f + disk $%.2f), bound $%.2f/h, %.3fx",
		len(after.NodeClaims), after.Cost.PricePerHour, after.Cost.VMPricePerHour, after.Cost.DiskPricePerHour,
		after.Cost.LowerBoundPerHour, after.Cost.PricePerHour/after.Cost.LowerBoundPerHour)

	assert.InDelta(t, afterBill, after.Cost.PricePerHour, 1e-6, "the plan's price is its full bill")
	assert.InDelta(t, after.Cost.PricePerHour, after.Cost.VMPricePerHour+after.Cost.DiskPricePerHour, 1e-6)
	assert.Less(t, afterBill, beforeBill, "pricing the disks lowers the real bill")
	assert.Less(t, len(after.NodeClaims), len(before.NodeClaims), "fewer, larger nodes")
	assert.LessOrEqual(t, after.Cost.PricePerHour, 1.10*after.Cost.LowerBoundPerHour, "within 1.10x of the full-bill bound")
}
