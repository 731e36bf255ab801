package azuresim_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch/azuresim"
)

const rg = "rg"

var poll = &runtime.PollUntilDoneOptions{Frequency: time.Millisecond}

type clients struct {
	sim  *azuresim.Sim
	vms  *armcompute.VirtualMachinesClient
	nics *armnetwork.InterfacesClient
}

func newClients(t *testing.T, opts azuresim.Options) clients {
	t.Helper()
	sim := azuresim.New(opts)
	co := sim.ClientOptions()
	co.Retry.MaxRetries = -1 // the simulator's answers, unretried
	vms, err := armcompute.NewVirtualMachinesClient(sim.SubscriptionID(), sim.Credential(), co)
	require.NoError(t, err)
	nics, err := armnetwork.NewInterfacesClient(sim.SubscriptionID(), sim.Credential(), co)
	require.NoError(t, err)
	return clients{sim: sim, vms: vms, nics: nics}
}

func (c clients) putNIC(t *testing.T, name string) string {
	t.Helper()
	p, err := c.nics.BeginCreateOrUpdate(context.Background(), rg, name, armnetwork.Interface{
		Location: to.Ptr(c.sim.Location()),
		Properties: &armnetwork.InterfacePropertiesFormat{IPConfigurations: []*armnetwork.InterfaceIPConfiguration{{
			Name: to.Ptr(name), Properties: &armnetwork.InterfaceIPConfigurationPropertiesFormat{Subnet: &armnetwork.Subnet{ID: to.Ptr("/subnets/s")}},
		}}},
	}, nil)
	require.NoError(t, err)
	resp, err := p.PollUntilDone(context.Background(), poll)
	require.NoError(t, err)
	return *resp.ID
}

func vmBody(location, size, nicID, zone string, spot bool) armcompute.VirtualMachine {
	vm := armcompute.VirtualMachine{
		Location: to.Ptr(location),
		Properties: &armcompute.VirtualMachineProperties{
			HardwareProfile: &armcompute.HardwareProfile{VMSize: to.Ptr(armcompute.VirtualMachineSizeTypes(size))},
			NetworkProfile: &armcompute.NetworkProfile{NetworkInterfaces: []*armcompute.NetworkInterfaceReference{{
				ID: to.Ptr(nicID), Properties: &armcompute.NetworkInterfaceReferenceProperties{DeleteOption: to.Ptr(armcompute.DeleteOptionsDelete)},
			}}},
			OSProfile: &armcompute.OSProfile{CustomData: to.Ptr("c2VjcmV0")},
		},
	}
	if zone != "" {
		vm.Zones = []*string{to.Ptr(zone)}
	}
	if spot {
		vm.Properties.Priority = to.Ptr(armcompute.VirtualMachinePriorityTypesSpot)
	}
	return vm
}

// putVM creates NIC and VM name and returns the VM or the ARM error.
func (c clients) putVM(t *testing.T, name, size, zone string, spot bool) (armcompute.VirtualMachine, error) {
	t.Helper()
	nicID := c.putNIC(t, name)
	p, err := c.vms.BeginCreateOrUpdate(context.Background(), rg, name, vmBody(c.sim.Location(), size, nicID, zone, spot), nil)
	if err != nil {
		return armcompute.VirtualMachine{}, err
	}
	resp, err := p.PollUntilDone(context.Background(), poll)
	return resp.VirtualMachine, err
}

func armCode(t *testing.T, err error) (string, int) {
	t.Helper()
	re, ok := errors.AsType[*azcore.ResponseError](err)
	require.True(t, ok, "%v", err)
	return re.ErrorCode, re.StatusCode
}

func TestVMLifecycle(t *testing.T) {
	c := newClients(t, azuresim.Options{})
	vm, err := c.putVM(t, "vm-1", "Standard_D2s_v5", "1", false)
	require.NoError(t, err)
	assert.Equal(t, "Succeeded", *vm.Properties.ProvisioningState)
	assert.Nil(t, vm.Properties.OSProfile.CustomData, "ARM never returns customData")
	assert.NotNil(t, vm.Properties.TimeCreated)

	_, err = c.nics.BeginDelete(context.Background(), rg, "vm-1", nil)
	code, status := armCode(t, err)
	assert.Equal(t, "NicInUse", code)
	assert.Equal(t, http.StatusBadRequest, status)

	p, err := c.vms.BeginDelete(context.Background(), rg, "vm-1", &armcompute.VirtualMachinesClientBeginDeleteOptions{ForceDeletion: to.Ptr(true)})
	require.NoError(t, err)
	_, err = p.PollUntilDone(context.Background(), poll)
	require.NoError(t, err)
	assert.Empty(t, c.sim.VMNames())
	assert.Empty(t, c.sim.NICNames(), "deleteOption Delete took the NIC along")

	_, err = c.vms.Get(context.Background(), rg, "vm-1", nil)
	code, status = armCode(t, err)
	assert.Equal(t, "ResourceNotFound", code)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, map[string]int{"vm-1": 4}, c.sim.Writes(), "NIC PUT, VM PUT, refused NIC DELETE, VM DELETE")
}

func TestVMRefusals(t *testing.T) {
	tests := []struct {
		name     string
		opts     azuresim.Options
		existing int // VMs made first
		size     string
		zone     string
		spot     bool
		wantCode string
		wantText string
		async    bool
	}{
		{name: "unknown size", size: "Standard_Nope", wantCode: "SkuNotAvailable", wantText: "Standard_Nope"},
		{name: "family quota", opts: azuresim.Options{Quota: map[string]int{"standardDSv5Family": 4}}, existing: 2, size: "Standard_D2s_v5",
			wantCode: "OperationNotAllowed", wantText: "exceeding approved standardDSv5Family Cores quota. Additional details - Deployment Model: Resource Manager, Location: westus2, Current Limit: 4, Current Usage: 4"},
		{name: "regional quota", opts: azuresim.Options{Quota: map[string]int{azuresim.QuotaTotalRegional: 2}}, existing: 1, size: "Standard_D2s_v5",
			wantCode: "OperationNotAllowed", wantText: "Total Regional Cores quota"},
		{name: "spot quota", opts: azuresim.Options{Quota: map[string]int{azuresim.QuotaLowPriority: 0}}, size: "Standard_D2s_v5", spot: true,
			wantCode: "OperationNotAllowed", wantText: "LowPriorityCores"},
		{name: "zonal capacity", opts: azuresim.Options{Capacity: map[azuresim.Slot]int{{SKU: "Standard_D2s_v5", Zone: "2"}: 1}}, existing: 1, size: "Standard_D2s_v5", zone: "2",
			wantCode: "ZonalAllocationFailed", async: true},
		{name: "regional capacity", opts: azuresim.Options{Capacity: map[azuresim.Slot]int{{SKU: "Standard_D2s_v5", Zone: azuresim.Regional}: 0}}, size: "Standard_D2s_v5",
			wantCode: "AllocationFailed", async: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClients(t, tt.opts)
			for i := range tt.existing {
				_, err := c.putVM(t, fmt.Sprintf("ok-%d", i), tt.size, tt.zone, tt.spot)
				require.NoError(t, err)
			}
			_, err := c.putVM(t, "refused", tt.size, tt.zone, tt.spot)
			code, status := armCode(t, err)
			assert.Equal(t, tt.wantCode, code)
			re, _ := errors.AsType[*azcore.ResponseError](err)
			assert.Contains(t, re.Error(), tt.wantText)
			if tt.async {
				assert.Equal(t, http.StatusOK, status, "delivered by the operation")
				assert.Contains(t, c.sim.VMNames(), "refused", "a Failed VM is left behind")
			} else {
				assert.Equal(t, http.StatusConflict, status)
				assert.NotContains(t, c.sim.VMNames(), "refused")
			}
		})
	}
}

func TestFailedVMsHoldNoCapacity(t *testing.T) {
	c := newClients(t, azuresim.Options{Capacity: map[azuresim.Slot]int{{SKU: "Standard_D2s_v5", Zone: "1"}: 1}})
	c.sim.Inject(azuresim.Fault{Kind: azuresim.FaultZonalAllocationFailed, Async: true, Count: 1})
	_, err := c.putVM(t, "first", "Standard_D2s_v5", "1", false)
	require.Error(t, err)
	_, err = c.putVM(t, "second", "Standard_D2s_v5", "1", false)
	require.NoError(t, err)
}

func TestVMNeedsItsNIC(t *testing.T) {
	c := newClients(t, azuresim.Options{})
	_, err := c.vms.BeginCreateOrUpdate(context.Background(), rg, "lonely",
		vmBody(c.sim.Location(), "Standard_D2s_v5", "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/networkInterfaces/missing", "", false), nil)
	code, _ := armCode(t, err)
	assert.Equal(t, "NotFound", code)
}

func TestListPages(t *testing.T) {
	c := newClients(t, azuresim.Options{PageSize: 2})
	for i := range 5 {
		_, err := c.putVM(t, fmt.Sprintf("vm-%d", i), "Standard_D2s_v5", "", false)
		require.NoError(t, err)
	}
	var names []string
	pager := c.vms.NewListPager(rg, nil)
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		require.NoError(t, err)
		for _, vm := range page.Value {
			names = append(names, *vm.Name)
		}
	}
	assert.Equal(t, []string{"vm-0", "vm-1", "vm-2", "vm-3", "vm-4"}, names)
	assert.Len(t, c.sim.RequestsFor(azuresim.OpVMList, ""), 3)
	nicPager := c.nics.NewListPager("other-rg", nil)
	page, err := nicPager.NextPage(context.Background())
	require.NoError(t, err)
	assert.Empty(t, page.Value, "resource groups are separate")
}

func TestFaults(t *testing.T) {
	c := newClients(t, azuresim.Options{})
	c.sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpVMGet, RetryAfter: 1500 * time.Millisecond, Count: 2})
	for range 2 {
		_, err := c.vms.Get(context.Background(), rg, "x", nil)
		_, status := armCode(t, err)
		assert.Equal(t, http.StatusTooManyRequests, status)
	}
	recs := c.sim.RequestsFor(azuresim.OpVMGet, "x")
	require.Len(t, recs, 2)
	_, err := c.vms.Get(context.Background(), rg, "x", nil)
	_, status := armCode(t, err)
	assert.Equal(t, http.StatusNotFound, status, "the fault is used up")

	c.sim.Inject(azuresim.Fault{Kind: azuresim.FaultServerError})
	_, err = c.vms.Get(context.Background(), rg, "x", nil)
	_, status = armCode(t, err)
	assert.Equal(t, http.StatusInternalServerError, status)
	c.sim.ClearFaults()

	c.sim.Inject(azuresim.Fault{Kind: azuresim.FaultHang})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = c.vms.Get(ctx, rg, "x", nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestThrottleHeaders(t *testing.T) {
	sim := azuresim.New(azuresim.Options{})
	sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, RetryAfter: 1500 * time.Millisecond})
	resp, err := sim.Do(rawRequest(t, sim, true))
	require.NoError(t, err)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "2", resp.Header.Get("Retry-After"))
	assert.Equal(t, "1500", resp.Header.Get("x-ms-retry-after-ms"))
}

func TestAuthenticationRequired(t *testing.T) {
	sim := azuresim.New(azuresim.Options{})
	resp, err := sim.Do(rawRequest(t, sim, false))
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

func rawRequest(t *testing.T, sim *azuresim.Sim, auth bool) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "https://management.azure.com/subscriptions/"+sim.SubscriptionID()+
		"/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/x?api-version=2025-04-01", nil)
	require.NoError(t, err)
	if auth {
		req.Header.Set("Authorization", "Bearer "+azuresim.Token)
	}
	return req
}

func TestCrashAfterNIC(t *testing.T) {
	c := newClients(t, azuresim.Options{})
	c.sim.Inject(azuresim.Fault{Kind: azuresim.FaultCrashAfterNIC, Name: "doomed"})
	p, err := c.nics.BeginCreateOrUpdate(context.Background(), rg, "doomed", armnetwork.Interface{
		Location: to.Ptr(c.sim.Location()),
		Properties: &armnetwork.InterfacePropertiesFormat{IPConfigurations: []*armnetwork.InterfaceIPConfiguration{{
			Properties: &armnetwork.InterfaceIPConfigurationPropertiesFormat{Subnet: &armnetwork.Subnet{ID: to.Ptr("/subnets/s")}},
		}}},
	}, nil)
	require.NoError(t, err, "the NIC PUT itself succeeds")
	_, err = p.PollUntilDone(context.Background(), poll)
	assert.True(t, azuresim.IsConnectionLost(err), "then the caller is cut off")
	assert.Equal(t, []string{"doomed"}, c.sim.NICNames())

	_, err = c.vms.BeginCreateOrUpdate(context.Background(), rg, "doomed", vmBody(c.sim.Location(), "Standard_D2s_v5", "/x/doomed", "", false), nil)
	assert.True(t, azuresim.IsConnectionLost(err))
	assert.Len(t, c.sim.RequestsFor(azuresim.OpVMPut, "doomed"), 1, "not retried")
	_, err = c.vms.Get(context.Background(), rg, "other", nil)
	_, status := armCode(t, err)
	assert.Equal(t, http.StatusNotFound, status, "other names are unaffected")

	c.sim.Reconnect()
	_, err = c.vms.Get(context.Background(), rg, "doomed", nil)
	_, status = armCode(t, err)
	assert.Equal(t, http.StatusNotFound, status, "reachable again")
}

func TestLatency(t *testing.T) {
	c := newClients(t, azuresim.Options{Latency: time.Millisecond, OpLatency: map[azuresim.Op]time.Duration{azuresim.OpVMGet: 30 * time.Millisecond}})
	start := time.Now()
	_, _ = c.vms.Get(context.Background(), rg, "x", nil)
	assert.GreaterOrEqual(t, time.Since(start), 30*time.Millisecond)
}

// TestOperationTime: a VM create answers InProgress, and the VM shows Creating, until its
// operation time has passed on the simulator's clock; a NIC create without one is done at once.
func TestOperationTime(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { return now }
	c := newClients(t, azuresim.Options{Clock: clock, OperationTime: map[azuresim.Op]time.Duration{azuresim.OpVMPut: 30 * time.Second}})
	nicID := c.putNIC(t, "vm-1")
	p, err := c.vms.BeginCreateOrUpdate(context.Background(), rg, "vm-1", vmBody(c.sim.Location(), "Standard_D2s_v5", nicID, "1", false), nil)
	require.NoError(t, err)
	for _, at := range []time.Duration{0, 29 * time.Second} {
		now = time.Unix(1_000_000, 0).Add(at)
		_, err = p.Poll(context.Background())
		require.NoError(t, err)
		assert.False(t, p.Done(), "at %v", at)
		vm, err := c.vms.Get(context.Background(), rg, "vm-1", nil)
		require.NoError(t, err)
		assert.NotEqual(t, "Succeeded", *vm.Properties.ProvisioningState, "at %v", at)
	}
	now = time.Unix(1_000_000, 0).Add(30 * time.Second)
	resp, err := p.PollUntilDone(context.Background(), poll)
	require.NoError(t, err)
	assert.Equal(t, "Succeeded", *resp.Properties.ProvisioningState)
}

// A VM whose create time has passed is Succeeded in the next list, unpolled: Compute finishes it
// whether or not its creator looks (the simulated kubelets boot what a list shows them).
func TestListShowsFinishedVMUnpolled(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	c := newClients(t, azuresim.Options{Clock: func() time.Time { return now },
		OperationTime: map[azuresim.Op]time.Duration{azuresim.OpVMPut: 30 * time.Second}})
	nicID := c.putNIC(t, "vm-1")
	_, err := c.vms.BeginCreateOrUpdate(context.Background(), rg, "vm-1", vmBody(c.sim.Location(), "Standard_D2s_v5", nicID, "1", false), nil)
	require.NoError(t, err)
	state := func() string {
		page, err := c.vms.NewListPager(rg, nil).NextPage(context.Background())
		require.NoError(t, err)
		require.Len(t, page.Value, 1)
		return *page.Value[0].Properties.ProvisioningState
	}
	now = now.Add(29 * time.Second)
	assert.NotEqual(t, "Succeeded", state())
	now = now.Add(time.Second)
	assert.Equal(t, "Succeeded", state())
}
