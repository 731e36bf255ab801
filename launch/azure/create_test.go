package azure_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// writes counts write calls on a resource name.
func writes(sim *azuresim.Sim, name string) int { return sim.Writes()[name] }

// vmPutZones lists the ARM zone and priority of every VM PUT on name.
func vmPuts(t *testing.T, sim *azuresim.Sim, name string) []string {
	t.Helper()
	var out []string
	for _, r := range sim.RequestsFor(azuresim.OpVMPut, name) {
		b := jsonBody(t, r)
		zone := "0"
		if z, ok := field(b, "zones.0").(string); ok {
			zone = z
		}
		out = append(out, field(b, "properties.hardwareProfile.vmSize").(string)+"/"+zone+"/"+field(b, "properties.priority").(string))
	}
	return out
}

func TestCreateReusesExistingVM(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	req := request("reuse-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...))
	first, err := f.launcher.Create(context.Background(), req)
	require.NoError(t, err)
	before := writes(f.sim, "aks-reuse-1")

	second, err := f.launcher.Create(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, first, second)
	assert.Equal(t, before, writes(f.sim, "aks-reuse-1"), "a second create writes nothing")
	assert.Equal(t, []string{"aks-reuse-1"}, f.sim.VMNames())
}

func TestCreateReplacesFailedVMAndRefusesDeletingOne(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	req := request("stale-1", candidate("Standard_D2s_v5", 2, offering("westus2-1", launch.CapacityTypeOnDemand, 0.1)))
	_, err := f.launcher.Create(context.Background(), req)
	require.NoError(t, err)

	require.True(t, f.sim.SetVMState(testRG, "aks-stale-1", "Deleting"))
	_, err = f.launcher.Create(context.Background(), req)
	assert.ErrorIs(t, err, launch.ErrCloud)
	assert.ErrorContains(t, err, "being deleted")

	require.True(t, f.sim.SetVMState(testRG, "aks-stale-1", "Failed"))
	inst, err := f.launcher.Create(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, launch.StateSucceeded, inst.State)
	deletes := f.sim.RequestsFor(azuresim.OpVMDelete, "aks-stale-1")
	require.Len(t, deletes, 1, "the failed VM was deleted before the new create")
	assert.Equal(t, "true", deletes[0].Query.Get("forceDeletion"))
}

// A controller that dies between NIC and VM leaves a NIC; the restarted
// controller's create reuses the name and makes exactly one VM.
func TestCreateAfterCrashBetweenNICAndVM(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultCrashAfterNIC, Name: "aks-crash-1", Count: 1})
	req := request("crash-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...))

	_, err := f.launcher.Create(context.Background(), req)
	require.ErrorIs(t, err, azuresim.ErrConnectionLost)
	assert.ErrorAs(t, err, new(*launch.LaunchError))
	assert.Equal(t, []string{"aks-crash-1"}, f.sim.NICNames(), "the crash left the NIC")
	assert.Empty(t, f.sim.VMNames())

	f.sim.Reconnect()
	_, err = f.launcher.Create(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, []string{"aks-crash-1"}, f.sim.VMNames())
	assert.Equal(t, []string{"aks-crash-1"}, f.sim.NICNames())
}

// A controller that dies after the VM but before its extensions leaves a VM
// that would never be billed (or, with a CSE, never bootstrap): the
// restarted controller's create replaces it rather than reusing it.
func TestCreateAfterCrashBetweenVMAndExtensions(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultCrashAfterVM, Count: 1})
	req := request("crash-2", candidate("Standard_D2s_v5", 2, zonal(0.1)...))

	_, err := f.launcher.Create(context.Background(), req)
	require.ErrorIs(t, err, azuresim.ErrConnectionLost)
	assert.Equal(t, []string{"aks-crash-2"}, f.sim.VMNames(), "the crash left the VM")
	assert.Empty(t, f.sim.Extensions(testRG, "aks-crash-2"), "without its extensions")

	f.sim.Reconnect()
	f.sim.ResetRecords() // the crashed controller's cleanup was attempted, and cut off
	inst, err := f.launcher.Create(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, launch.StateSucceeded, inst.State)
	assert.Len(t, f.sim.RequestsFor(azuresim.OpVMDelete, "aks-crash-2"), 1, "the incomplete VM was deleted")
	assert.Equal(t, []string{"aks-crash-2"}, f.sim.VMNames())
	assert.Equal(t, []string{"aks-crash-2"}, f.sim.NICNames())
	assert.Equal(t, []string{azure.BillingExtensionName}, f.sim.Extensions(testRG, "aks-crash-2"))

	before := writes(f.sim, "aks-crash-2")
	_, err = f.launcher.Create(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, before, writes(f.sim, "aks-crash-2"), "a complete VM is reused without a write")
}

func TestCreateFailureRemovesNIC(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultSkuNotAvailable})
	_, err := f.launcher.Create(context.Background(),
		request("nic-1", candidate("Standard_D2s_v5", 2, offering("westus2-1", launch.CapacityTypeOnDemand, 0.1))))
	require.ErrorIs(t, err, launch.ErrSKUNotAvailable)
	assert.Empty(t, f.sim.NICNames())
	assert.Empty(t, f.sim.VMNames())
	assert.Equal(t, 3, writes(f.sim, "aks-nic-1"), "NIC PUT, VM PUT, NIC DELETE")
	assert.Empty(t, f.sim.RequestsFor(azuresim.OpVMDelete, "aks-nic-1"), "a refused VM was never made, so it is not deleted")
}

// Reference case 17 and the retry-next-offering rule.
func TestCreateFallsBackToNextOffering(t *testing.T) {
	spot, od := launch.CapacityTypeSpot, launch.CapacityTypeOnDemand
	e4 := candidate("Standard_E4s_v5", 4, offering("westus2-1", od, 0.5))
	e4.Family = "standardESv5Family"
	f4 := candidate("Standard_F4s_v2", 4, offering("westus2-1", od, 0.9))
	f4.Family = "standardFSv2Family"
	tests := []struct {
		name       string
		simOpts    azuresim.Options
		fault      azuresim.Fault
		candidates []launch.Candidate
		wantPuts   []string // SKU/zone/priority of each VM PUT
		wantErr    error
		wantVMDel  bool // the first attempt left a Failed VM that was force-deleted
	}{
		{
			name:       "LowPriorityCores: spot then on-demand",
			fault:      azuresim.Fault{Kind: azuresim.FaultLowPriorityQuota, Count: 1},
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, offering("westus2-1", spot, 0.02), offering("westus2-1", od, 0.1))},
			wantPuts:   []string{"Standard_D2s_v5/1/Spot", "Standard_D2s_v5/1/Regular"},
		},
		{
			name:  "OverconstrainedZonal: same size and capacity type, other zone",
			fault: azuresim.Fault{Kind: azuresim.FaultOverconstrainedZonal, Zone: "2", Count: 1},
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2,
				offering("westus2-2", od, 0.09), offering("westus2-1", od, 0.1), offering("westus2-3", od, 0.1))},
			wantPuts: []string{"Standard_D2s_v5/2/Regular", "Standard_D2s_v5/1/Regular"},
		},
		{
			name:       "family quota at limit 0: other family",
			fault:      azuresim.Fault{Kind: azuresim.FaultFamilyQuota, SKU: "Standard_D2s_v5", Limit: 0},
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, offering("westus2-1", od, 0.1), offering("westus2-2", od, 0.1)), e4},
			wantPuts:   []string{"Standard_D2s_v5/1/Regular", "Standard_E4s_v5/1/Regular"},
		},
		{
			name:       "family quota at limit 100: other family",
			fault:      azuresim.Fault{Kind: azuresim.FaultFamilyQuota, SKU: "Standard_D2s_v5", Limit: 100},
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, offering("westus2-1", od, 0.1)), e4},
			wantPuts:   []string{"Standard_D2s_v5/1/Regular", "Standard_E4s_v5/1/Regular"},
		},
		{
			name:       "Total Regional Cores: no second try",
			fault:      azuresim.Fault{Kind: azuresim.FaultRegionalQuota},
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, offering("westus2-1", od, 0.1)), e4},
			wantPuts:   []string{"Standard_D2s_v5/1/Regular"},
			wantErr:    launch.ErrInsufficientCapacity,
		},
		{
			name:    "zonal capacity exhausted (async): Failed VM deleted, next zone",
			simOpts: azuresim.Options{Capacity: map[azuresim.Slot]int{{SKU: "Standard_D2s_v5", Zone: "1"}: 0}},
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2,
				offering("westus2-1", od, 0.09), offering("westus2-2", od, 0.1))},
			wantPuts:  []string{"Standard_D2s_v5/1/Regular", "Standard_D2s_v5/2/Regular"},
			wantVMDel: true,
		},
		{
			name:  "regional AllocationFailed (async): zonal next",
			fault: azuresim.Fault{Kind: azuresim.FaultAllocationFailed, Zone: azuresim.Regional, Async: true},
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2,
				offering("0", od, 0.09), offering("westus2-3", od, 0.1))},
			wantPuts:  []string{"Standard_D2s_v5/0/Regular", "Standard_D2s_v5/3/Regular"},
			wantVMDel: true,
		},
		{
			name:       "SkuNotAvailable everywhere: attempts run out",
			fault:      azuresim.Fault{Kind: azuresim.FaultSkuNotAvailable},
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, offering("westus2-1", od, 0.1)), e4, f4, candidate("Standard_D16s_v5", 16, offering("0", od, 2))},
			wantPuts:   []string{"Standard_D2s_v5/1/Regular", "Standard_E4s_v5/1/Regular", "Standard_F4s_v2/1/Regular"},
			wantErr:    launch.ErrSKUNotAvailable,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.simOpts)
			if tt.fault.Kind != "" {
				f.sim.Inject(tt.fault)
			}
			inst, err := f.launcher.Create(context.Background(), request("fb-1", tt.candidates...))
			assert.Equal(t, tt.wantPuts, vmPuts(t, f.sim, "aks-fb-1"))
			assert.Equal(t, tt.wantVMDel, len(f.sim.RequestsFor(azuresim.OpVMDelete, "aks-fb-1")) > 0)
			nicDeletes := f.sim.RequestsFor(azuresim.OpNICDelete, "aks-fb-1")
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Len(t, nicDeletes, len(tt.wantPuts), "every failed attempt removed its NIC")
				assert.Empty(t, f.sim.NICNames())
				assert.Empty(t, f.sim.VMNames())
				return
			}
			require.NoError(t, err)
			assert.Len(t, nicDeletes, len(tt.wantPuts)-1, "every failed attempt removed its NIC")
			assert.Equal(t, []string{"aks-fb-1"}, f.sim.VMNames())
			assert.Equal(t, []string{"aks-fb-1"}, f.sim.NICNames())
			assert.Equal(t, launch.StateSucceeded, inst.State)
		})
	}
}

func TestCreateWithNoAvailableOffering(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	o := offering("westus2-1", launch.CapacityTypeOnDemand, 0.1)
	o.Available = false
	_, err := f.launcher.Create(context.Background(), request("none-1", candidate("Standard_D2s_v5", 2, o)))
	require.ErrorIs(t, err, launch.ErrInsufficientCapacity)
	assert.ErrorContains(t, err, "no available offering")
	assert.Zero(t, writes(f.sim, "aks-none-1"))
}

func TestCreateInvalidRequestMakesNoCalls(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	req := request("bad-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...))
	req.SubnetID = ""
	_, err := f.launcher.Create(context.Background(), req)
	require.ErrorIs(t, err, launch.ErrInvalidRequest)
	le, ok := errors.AsType[*launch.LaunchError](err)
	require.True(t, ok)
	assert.Equal(t, launch.ReasonInvalidRequest, le.Reason)
	assert.Empty(t, f.sim.Requests())
	_, err = f.launcher.Create(context.Background(), nil)
	assert.ErrorIs(t, err, launch.ErrInvalidRequest)
}

// 429s are retried by azcore's retry policy after the Retry-After delay.
func TestCreateHonoursRetryAfter(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	const after = 80 * time.Millisecond
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpVMPut, RetryAfter: after, Count: 2})
	_, err := f.launcher.Create(context.Background(), request("throttle-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.NoError(t, err)
	puts := f.sim.RequestsFor(azuresim.OpVMPut, "aks-throttle-1")
	require.Len(t, puts, 3)
	assert.Equal(t, 429, puts[0].Status)
	assert.Equal(t, 429, puts[1].Status)
	assert.Equal(t, 201, puts[2].Status)
	for i := 1; i < len(puts); i++ {
		assert.GreaterOrEqual(t, puts[i].At.Sub(puts[i-1].At), after, "try %d waited for Retry-After", i+1)
	}
}

func TestCreateThrottledToTheEnd(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpVMPut, RetryAfter: time.Millisecond})
	_, err := f.launcher.Create(context.Background(), request("throttle-2",
		candidate("Standard_D2s_v5", 2, zonal(0.1)...), candidate("Standard_D4s_v5", 4, zonal(0.2)...)))
	require.ErrorIs(t, err, launch.ErrThrottled)
	assert.NotErrorIs(t, err, launch.ErrInsufficientCapacity)
	assert.Len(t, f.sim.RequestsFor(azuresim.OpVMPut, "aks-throttle-2"), 4, "one try plus azcore's 3 retries, on one offering only")
	assert.Empty(t, f.sim.NICNames())
	assert.Zero(t, f.launcher.Cache().SeqNum(), "throttling marks no offering")
}

func TestCreateRetriesServerErrorsAndHangs(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultServerError, Op: azuresim.OpNICPut, Count: 2})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultHang, Op: azuresim.OpVMPut, Count: 1})
	_, err := f.launcher.Create(context.Background(), request("flaky-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.NoError(t, err)
	nicPuts := f.sim.RequestsFor(azuresim.OpNICPut, "aks-flaky-1")
	require.Len(t, nicPuts, 3)
	assert.Equal(t, []int{500, 500, 201}, []int{nicPuts[0].Status, nicPuts[1].Status, nicPuts[2].Status})
	vmPuts := f.sim.RequestsFor(azuresim.OpVMPut, "aks-flaky-1")
	require.Len(t, vmPuts, 2)
	assert.ErrorIs(t, vmPuts[0].Err, context.DeadlineExceeded, "the hung try timed out")
	assert.Equal(t, 201, vmPuts[1].Status)
	assert.Equal(t, []string{"aks-flaky-1"}, f.sim.VMNames())
}

func TestCreatePollsAtTheConfiguredFrequency(t *testing.T) {
	const freq = 25 * time.Millisecond
	f := newFixture(t, azuresim.Options{OperationPolls: 3}, func(o *azure.Options) { o.PollFrequency = freq })
	_, err := f.launcher.Create(context.Background(), request("poll-1", candidate("Standard_D2s_v5", 2, zonal(0.1)...)))
	require.NoError(t, err)
	var polls []azuresim.Record
	for _, r := range f.sim.Requests() {
		if r.Op == azuresim.OpOperation && r.Name == "aks-poll-1" {
			polls = append(polls, r)
		}
	}
	require.Len(t, polls, 4, "the VM operation answers InProgress 3 times (the NIC is done at once)")
	for i := 1; i < len(polls); i++ {
		assert.GreaterOrEqual(t, polls[i].At.Sub(polls[i-1].At), freq)
	}
}

func TestCreateCancelledContextStillCleansUp(t *testing.T) {
	f := newFixture(t, azuresim.Options{})
	f.sim.Inject(azuresim.Fault{Kind: azuresim.FaultHang, Op: azuresim.OpVMPut})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := f.launcher.Create(ctx, request("cancel-1", candidate("Standard_D2s_v5", 2, offering("westus2-1", launch.CapacityTypeOnDemand, 0.1))))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Empty(t, f.sim.NICNames(), "the NIC was removed after the caller gave up")
}
