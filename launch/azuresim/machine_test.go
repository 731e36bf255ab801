package azuresim_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch/azuresim"
)

const poolPath = "/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c/agentPools/pool"

// machineClient sends raw Machine API requests through an azcore pipeline.
type machineClient struct {
	sim *azuresim.Sim
	cl  *arm.Client
}

func newMachineClient(t *testing.T, opts azuresim.Options) machineClient {
	t.Helper()
	sim := azuresim.New(opts)
	co := sim.ClientOptions()
	co.Retry.MaxRetries = -1
	cl, err := arm.NewClient("azuresim_test", "v0.1.0", sim.Credential(), co)
	require.NoError(t, err)
	return machineClient{sim: sim, cl: cl}
}

func (m machineClient) do(t *testing.T, method, path string, body any) *http.Response {
	t.Helper()
	req, err := runtime.NewRequest(context.Background(), method,
		runtime.JoinPaths(m.cl.Endpoint(), "/subscriptions/"+m.sim.SubscriptionID()+poolPath+path)+"?api-version=2025-10-02-preview")
	require.NoError(t, err)
	if body != nil {
		require.NoError(t, runtime.MarshalAsJSON(req, body))
	}
	resp, err := m.cl.Pipeline().Do(req)
	require.NoError(t, err)
	return resp
}

// put creates a machine and follows its operation to the end.
func (m machineClient) put(t *testing.T, name, size, zone string) (*http.Response, map[string]any) {
	t.Helper()
	body := map[string]any{"properties": map[string]any{
		"hardware": map[string]any{"vmSize": size}, "priority": "Regular",
		"kubernetes": map[string]any{"nodeImageVersion": "AKSUbuntu-2204gen2containerd-202501.01.0"},
	}}
	if zone != "" {
		body["zones"] = []string{zone}
	}
	resp := m.do(t, http.MethodPut, "/machines/"+name, body)
	if resp.StatusCode != http.StatusCreated {
		return resp, nil
	}
	p, err := runtime.NewPoller[map[string]any](resp, m.cl.Pipeline(), nil)
	require.NoError(t, err)
	out, _ := p.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: 1})
	return resp, out
}

func decode(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	var m map[string]any
	body, err := runtime.Payload(resp)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(body, &m))
	return m
}

func TestMachineLifecycle(t *testing.T) {
	m := newMachineClient(t, azuresim.Options{})
	_, got := m.put(t, "m1", "Standard_D2s_v5", "1")
	props := got["properties"].(map[string]any)
	assert.Equal(t, "Succeeded", props["provisioningState"])
	assert.Equal(t, "/subscriptions/"+azuresim.DefaultSubscriptionID+"/resourceGroups/MC_rg_c_westus2/providers/Microsoft.Compute/virtualMachines/"+
		azuresim.MachineVMName("pool", "m1"), props["resourceId"])
	assert.Regexp(t, `^aks-pool-m1-[0-9a-f]{8}-vm$`, azuresim.MachineVMName("pool", "m1"))
	_, _ = m.put(t, "m2", "Standard_D2s_v5", "")

	list := decode(t, m.do(t, http.MethodGet, "/machines", nil))
	assert.Len(t, list["value"], 2)
	assert.Equal(t, []string{"m1", "m2"}, m.sim.MachineNames())

	resp := m.do(t, http.MethodPost, "/deleteMachines", map[string]any{"machineNames": []string{"m1", "m2", "gone"}})
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	p, err := runtime.NewPoller[struct{}](resp, m.cl.Pipeline(), nil)
	require.NoError(t, err)
	_, err = p.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: 1})
	require.NoError(t, err)
	assert.Empty(t, m.sim.MachineNames())
	assert.Equal(t, http.StatusNotFound, m.do(t, http.MethodGet, "/machines/m1", nil).StatusCode)
	assert.Equal(t, http.StatusNotFound, m.do(t, http.MethodPost, "/deleteMachines", map[string]any{"machineNames": []string{"m1"}}).StatusCode)
	assert.Equal(t, map[string]int{"m1": 3, "m2": 2, "gone": 1}, m.sim.Writes(), "a deleteMachines call counts for each name it lists")
}

func TestMachineRefusals(t *testing.T) {
	tests := []struct {
		name     string
		opts     azuresim.Options
		fault    *azuresim.Fault
		size     string
		wantCode string // the PUT's error code, or the provisioning error's first detail
		async    bool
	}{
		{name: "unknown size", size: "Standard_Nope", wantCode: "VMSizeNotSupported"},
		{name: "injected VMSizeNotSupported", size: "Standard_D2s_v5", wantCode: "VMSizeNotSupported",
			fault: &azuresim.Fault{Kind: azuresim.FaultVMSizeNotSupported}},
		{name: "family quota counts machines", opts: azuresim.Options{Quota: map[string]int{"standardDSv5Family": 2}},
			size: "Standard_D2s_v5", wantCode: "OperationNotAllowed"},
		{name: "async allocation failure", size: "Standard_D2s_v5", wantCode: "AllocationFailed", async: true,
			fault: &azuresim.Fault{Kind: azuresim.FaultAllocationFailed, Async: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachineClient(t, tt.opts)
			if tt.opts.Quota != nil {
				_, _ = m.put(t, "first", "Standard_D2s_v5", "")
			}
			if tt.fault != nil {
				m.sim.Inject(*tt.fault)
			}
			resp, got := m.put(t, "m", tt.size, "")
			if !tt.async {
				assert.GreaterOrEqual(t, resp.StatusCode, 400)
				assert.Equal(t, tt.wantCode, decode(t, resp)["error"].(map[string]any)["code"])
				return
			}
			assert.Nil(t, got)
			machine := decode(t, m.do(t, http.MethodGet, "/machines/m", nil))
			props := machine["properties"].(map[string]any)
			assert.Equal(t, "Failed", props["provisioningState"])
			perr := props["status"].(map[string]any)["provisioningError"].(map[string]any)
			assert.Equal(t, tt.wantCode, perr["details"].([]any)[0].(map[string]any)["code"])
		})
	}
}

// An operation runs whether or not its creator polls it: a list that shows the machine is a look
// at it too, so a machine whose create time has passed is Succeeded in the next list, unpolled
// (the simulated kubelets boot what a list shows them; a launcher may follow its creates by list).
func TestListShowsFinishedMachineUnpolled(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	m := newMachineClient(t, azuresim.Options{Clock: func() time.Time { return now },
		OperationTime: map[azuresim.Op]time.Duration{azuresim.OpMachinePut: 30 * time.Second}})
	body := map[string]any{"properties": map[string]any{"hardware": map[string]any{"vmSize": "Standard_D2s_v5"},
		"kubernetes": map[string]any{"nodeImageVersion": "AKSUbuntu-2204gen2containerd-202501.01.0"}}}
	require.Equal(t, http.StatusCreated, m.do(t, http.MethodPut, "/machines/m1", body).StatusCode)
	state := func() any {
		list := decode(t, m.do(t, http.MethodGet, "/machines", nil))["value"].([]any)
		require.Len(t, list, 1)
		return list[0].(map[string]any)["properties"].(map[string]any)["provisioningState"]
	}
	now = now.Add(29 * time.Second)
	assert.Equal(t, "Creating", state())
	now = now.Add(time.Second)
	assert.Equal(t, "Succeeded", state())
}
