package azure_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// faultGroup is ten launches aimed at one fault.
type faultGroup struct {
	prefix     string
	candidates []launch.Candidate
	faults     func(name string) []azuresim.Fault
	launched   bool  // the group ends launched (else failed)
	wantErr    error // the failed group's typed error
}

func familyCandidate(sku, family string, vcpus int, offerings ...launch.Offering) launch.Candidate {
	c := candidate(sku, vcpus, offerings...)
	c.Family = family
	return c
}

func faultGroups() []faultGroup {
	spot, od := launch.CapacityTypeSpot, launch.CapacityTypeOnDemand
	d2Fallback := candidate("Standard_D2s_v5", 2, offering("westus2-3", od, 0.3))
	perName := func(f azuresim.Fault) func(string) []azuresim.Fault {
		return func(name string) []azuresim.Fault { f.Name = name; return []azuresim.Fault{f} }
	}
	none := func(string) []azuresim.Fault { return nil }
	return []faultGroup{
		{prefix: "thr", launched: true, candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, zonal(0.1)[0:1]...)},
			faults: perName(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpVMPut, RetryAfter: 20 * time.Millisecond, Count: 2})},
		{prefix: "err", launched: true, candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, zonal(0.1)[0:1]...)},
			faults: perName(azuresim.Fault{Kind: azuresim.FaultServerError, Op: azuresim.OpNICPut, Count: 2})},
		{prefix: "hang", launched: true, candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, zonal(0.1)[0:1]...)},
			faults: perName(azuresim.Fault{Kind: azuresim.FaultHang, Op: azuresim.OpVMPut, Count: 1})},
		{prefix: "alloc", launched: true, candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, offering("0", od, 0.05), offering("westus2-1", od, 0.1))},
			faults: perName(azuresim.Fault{Kind: azuresim.FaultAllocationFailed, Zone: azuresim.Regional, Async: true})},
		{prefix: "zonal", launched: true, candidates: []launch.Candidate{candidate("Standard_D4s_v5", 4, offering("westus2-2", od, 0.15), offering("westus2-1", od, 0.2))},
			faults: perName(azuresim.Fault{Kind: azuresim.FaultZonalAllocationFailed, Zone: "2"})},
		{prefix: "sku", launched: true, candidates: []launch.Candidate{familyCandidate("Standard_F4s_v2", "standardFSv2Family", 4, offering("westus2-1", od, 0.15)), d2Fallback},
			faults: perName(azuresim.Fault{Kind: azuresim.FaultSkuNotAvailable, SKU: "Standard_F4s_v2"})},
		{prefix: "quota", launched: true, candidates: []launch.Candidate{familyCandidate("Standard_E4s_v5", "standardESv5Family", 4, offering("westus2-1", od, 0.15)), d2Fallback},
			faults: perName(azuresim.Fault{Kind: azuresim.FaultFamilyQuota, SKU: "Standard_E4s_v5", Limit: 0})},
		{prefix: "spot", launched: true, candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, offering("westus2-1", spot, 0.02), offering("westus2-1", od, 0.1))},
			faults: perName(azuresim.Fault{Kind: azuresim.FaultLowPriorityQuota, Count: 1})},
		{prefix: "capacity", launched: true, candidates: []launch.Candidate{candidate("Standard_D16s_v5", 16, offering("westus2-3", od, 0.5), offering("westus2-1", od, 0.6))},
			faults: none},
		{prefix: "crash", wantErr: azuresim.ErrConnectionLost, candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, zonal(0.1)[0:1]...)},
			faults: perName(azuresim.Fault{Kind: azuresim.FaultCrashAfterNIC, Count: 1})},
		{prefix: "regional", wantErr: launch.ErrInsufficientCapacity, candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, zonal(0.1)[0:1]...)},
			faults: perName(azuresim.Fault{Kind: azuresim.FaultRegionalQuota})},
	}
}

// 100+ concurrent launches through every fault: each ends launched or with a
// typed error, the cache holds the table's marks, and one GC pass leaves no
// resource without an owner.
func TestConcurrentLaunchesUnderFaults(t *testing.T) {
	f := newFixture(t, azuresim.Options{
		Latency:  2 * time.Millisecond,
		Capacity: map[azuresim.Slot]int{{SKU: "Standard_D16s_v5", Zone: "3"}: 4},
	}, func(o *azure.Options) { o.MaxConcurrency = 100 })
	groups := faultGroups()
	var reqs []*launch.Request
	want := map[string]faultGroup{}
	for _, g := range groups {
		for i := range 10 {
			name := fmt.Sprintf("%s-%02d", g.prefix, i)
			for _, fault := range g.faults(azure.ResourceName(name)) {
				f.sim.Inject(fault)
			}
			reqs = append(reqs, request(name, g.candidates...))
			want[name] = g
		}
	}
	require.GreaterOrEqual(t, len(reqs), 100)

	results := launch.LaunchAll(context.Background(), f.launcher, reqs, len(reqs))

	owned := map[string]bool{}
	for _, r := range results {
		g := want[r.Request.NodeClaimName]
		if g.launched {
			require.NoError(t, r.Err, r.Request.NodeClaimName)
			require.NotNil(t, r.Instance)
			owned[r.Request.NodeClaimName] = true
			continue
		}
		require.Error(t, r.Err, r.Request.NodeClaimName)
		_, typed := errors.AsType[*launch.LaunchError](r.Err)
		assert.True(t, typed, "%s: %T is not a *LaunchError", r.Request.NodeClaimName, r.Err)
		assert.ErrorIs(t, r.Err, g.wantErr, r.Request.NodeClaimName)
	}
	assert.Len(t, owned, 90)

	assertTableMarks(t, f.launcher.Cache())
	assertCapacityFallback(t, results)

	f.sim.Reconnect() // the crashed controller restarts
	_, err := f.launcher.CollectGarbage(context.Background(), func(n string) bool { return owned[n] }, 0, f.clock.Now())
	require.NoError(t, err)
	for _, name := range append(f.sim.VMNames(), f.sim.NICNames()...) {
		nodeClaim, _ := azure.NodeClaimName(name)
		assert.True(t, owned[nodeClaim], "%s has no owner after GC", name)
	}
	assert.Len(t, f.sim.VMNames(), 90)
	assert.Len(t, f.sim.NICNames(), 90)
}

// assertTableMarks checks the reference table's marks left by the faults.
func assertTableMarks(t *testing.T, cache *launch.UnavailableOfferings) {
	t.Helper()
	spot, od := launch.CapacityTypeSpot, launch.CapacityTypeOnDemand
	e := func(sku string, vcpus int, zone, ct string) launch.Placement {
		return launch.Placement{SKU: sku, Family: "standardESv5Family", VCPUs: vcpus, Zone: zone, CapacityType: ct}
	}
	fs := launch.Placement{SKU: "Standard_F4s_v2", Family: "standardFSv2Family", VCPUs: 4, Zone: "westus2-1", CapacityType: od}
	marked := map[string]launch.Placement{
		"LowPriorityCores: all spot":                 d("Standard_E4s_v5", 4, "westus2-3", spot),
		"AllocationFailed regional: on-demand":       d("Standard_D2s_v5", 2, "0", od),
		"AllocationFailed regional: spot":            d("Standard_D2s_v5", 2, "0", spot),
		"ZonalAllocationFailed: zone on-demand":      d("Standard_D4s_v5", 4, "westus2-2", od),
		"ZonalAllocationFailed: zone spot":           d("Standard_D4s_v5", 4, "westus2-2", spot),
		"ZonalAllocationFailed: bigger family sizes": d("Standard_D8s_v5", 8, "westus2-2", od),
		"SkuNotAvailable on-demand":                  fs,
		"family quota: SKU":                          e("Standard_E4s_v5", 4, "westus2-1", od),
		"family quota: bigger family sizes":          e("Standard_E8s_v5", 8, "westus2-1", od),
		"capacity (async ZonalAllocationFailed)":     d("Standard_D16s_v5", 16, "westus2-3", od),
	}
	for what, p := range marked {
		assert.True(t, cache.IsUnavailable(p), what)
	}
	available := map[string]launch.Placement{
		"Total Regional Cores marks nothing":       d("Standard_D2s_v5", 2, "westus2-1", od),
		"ZonalAllocationFailed spares other zones": d("Standard_D4s_v5", 4, "westus2-1", od),
		"family threshold spares smaller sizes":    d("Standard_D2s_v5", 2, "westus2-2", od),
		"family quota spares other families":       d("Standard_D2s_v5", 2, "westus2-3", od),
		"AllocationFailed regional spares zonal":   d("Standard_D2s_v5", 2, "westus2-3", od),
	}
	for what, p := range available {
		assert.False(t, cache.IsUnavailable(p), what)
	}
}

// assertCapacityFallback checks the capacity group filled zone 3, then moved on.
func assertCapacityFallback(t *testing.T, results []launch.Result) {
	t.Helper()
	zones := map[string]int{}
	for _, r := range results {
		if r.Instance != nil && r.Instance.SKU == "Standard_D16s_v5" {
			zones[r.Instance.Zone]++
		}
	}
	assert.Equal(t, map[string]int{"westus2-3": 4, "westus2-1": 6}, zones)
}
