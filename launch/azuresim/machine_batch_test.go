package azuresim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch/azuresim"
)

// member is one BatchPutMachine header entry.
type member struct {
	Name  string            `json:"machineName"`
	Zones []string          `json:"zones"`
	Tags  map[string]string `json:"tags"`
}

// putBatch sends one batched Machine PUT at the first member's name; header
// overrides the encoded members when not empty.
func (m machineClient) putBatch(t *testing.T, size string, members []member, header string) *http.Response {
	t.Helper()
	req, err := runtime.NewRequest(context.Background(), http.MethodPut,
		runtime.JoinPaths(m.cl.Endpoint(), "/subscriptions/"+m.sim.SubscriptionID()+poolPath+"/machines/"+members[0].Name)+"?api-version=2025-10-02-preview")
	require.NoError(t, err)
	require.NoError(t, runtime.MarshalAsJSON(req, map[string]any{
		"zones": []string{"3"}, // discarded: zones and tags come from the header
		"properties": map[string]any{
			"hardware": map[string]any{"vmSize": size}, "priority": "Regular", "tags": map[string]string{"shared": "dropped"},
			"kubernetes": map[string]any{"nodeImageVersion": "AKSUbuntu-2204gen2containerd-202501.01.0"},
		},
	}))
	if header == "" {
		raw, err := json.Marshal(map[string]any{"batchMachines": members})
		require.NoError(t, err)
		header = string(raw)
	}
	req.Raw().Header.Set(azuresim.BatchPutMachineHeader, header)
	resp, err := m.cl.Pipeline().Do(req)
	require.NoError(t, err)
	return resp
}

func members(n int) []member {
	out := make([]member, n)
	for i := range out {
		out[i] = member{Name: fmt.Sprintf("b%02d", i), Zones: []string{fmt.Sprint(i%3 + 1)}, Tags: map[string]string{"nodeclaim": fmt.Sprintf("nc%02d", i)}}
	}
	return out
}

// One PUT creates every machine the header names, each with its own zones
// and tags, and is one write.
func TestMachineBatchCreates(t *testing.T) {
	m := newMachineClient(t, azuresim.Options{})
	ms := members(3)
	ms[2].Zones = []string{}
	resp := m.putBatch(t, "Standard_D2s_v5", ms, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "b00", decode(t, resp)["name"], "the answer is the machine the URL names")
	assert.Equal(t, []string{"b00", "b01", "b02"}, m.sim.MachineNames())
	for i, mm := range ms {
		got := decode(t, m.do(t, http.MethodGet, "/machines/"+mm.Name, nil))
		props := got["properties"].(map[string]any)
		assert.Equal(t, "Succeeded", props["provisioningState"], mm.Name)
		assert.Equal(t, map[string]any{"nodeclaim": fmt.Sprintf("nc%02d", i)}, props["tags"], mm.Name)
		if i < 2 {
			assert.Equal(t, []any{fmt.Sprint(i + 1)}, got["zones"], mm.Name)
		} else {
			assert.Nil(t, got["zones"], "regional")
		}
		assert.Equal(t, "Standard_D2s_v5", props["hardware"].(map[string]any)["vmSize"])
	}
	puts := m.sim.RequestsFor(azuresim.OpMachinePut, "b00")
	require.Len(t, puts, 1)
	assert.Equal(t, []string{"b00", "b01", "b02"}, puts[0].Batch)
	assert.Equal(t, map[string]int{"b00": 1}, m.sim.Writes(), "the batch PUT is one write")
	assert.Equal(t, 1, m.sim.WriteCalls())
}

func TestMachineBatchRejectsBadHeaders(t *testing.T) {
	tests := []struct {
		name    string
		members []member
		header  string
		want    string
	}{
		{name: "not JSON", members: members(1), header: "machines: b00", want: "could not be deserialized"},
		{name: "empty", members: members(1), header: `{"batchMachines":[]}`, want: "at least one machine"},
		{name: "over 50", members: members(51), want: "at most 50"},
		{name: "duplicate", members: append(members(2), member{Name: "b01"}), want: "listed twice"},
		{name: "URL machine missing", members: members(2), header: `{"batchMachines":[{"machineName":"b01"}]}`, want: "which the request URL names"},
		{name: "two zones", members: []member{{Name: "b00", Zones: []string{"1", "2"}}}, want: "at most one zone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachineClient(t, azuresim.Options{})
			resp := m.putBatch(t, "Standard_D2s_v5", tt.members, tt.header)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			assert.Contains(t, decode(t, resp)["error"].(map[string]any)["message"], tt.want)
			assert.Empty(t, m.sim.MachineNames())
		})
	}
}

// Per-machine failures answer in AKS's two batch error formats; the other
// machines are created. A refused shared size fails the whole batch.
func TestMachineBatchFailures(t *testing.T) {
	tests := []struct {
		name       string
		faults     []azuresim.Fault
		existing   string
		wantStatus int
		wantCode   string
		wantFailed map[string]string // machine -> detail code
		wantMade   []string
	}{
		{name: "client errors", wantStatus: http.StatusBadRequest, wantCode: azuresim.BatchMachineClientError,
			faults:     []azuresim.Fault{{Kind: azuresim.FaultSkuNotAvailable, Name: "b01"}, {Kind: azuresim.FaultMachineInternalError, Name: "b02"}},
			existing:   "b03",
			wantFailed: map[string]string{"b01": "SkuNotAvailable", "b02": "InternalOperationError", "b03": azuresim.MachineAlreadyExistsCode},
			wantMade:   []string{"b00", "b03"}},
		{name: "internal errors only", wantStatus: http.StatusInternalServerError, wantCode: azuresim.BatchMachineInternalServerError,
			faults:     []azuresim.Fault{{Kind: azuresim.FaultMachineInternalError, Name: "b01"}},
			wantFailed: map[string]string{"b01": "InternalOperationError"},
			wantMade:   []string{"b00", "b02", "b03"}},
		{name: "zonal fault matches its machine's zone", wantStatus: http.StatusBadRequest, wantCode: azuresim.BatchMachineClientError,
			faults:     []azuresim.Fault{{Kind: azuresim.FaultSkuNotAvailable, Zone: "3"}},
			wantFailed: map[string]string{"b02": "SkuNotAvailable"},
			wantMade:   []string{"b00", "b01", "b03"}},
		{name: "shared size refused", wantStatus: http.StatusBadRequest, wantCode: "VMSizeNotSupported",
			faults: []azuresim.Fault{{Kind: azuresim.FaultVMSizeNotSupported}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachineClient(t, azuresim.Options{})
			if tt.existing != "" {
				_, _ = m.put(t, tt.existing, "Standard_D2s_v5", "")
			}
			for _, f := range tt.faults {
				m.sim.Inject(f)
			}
			resp := m.putBatch(t, "Standard_D2s_v5", members(4), "")
			require.Equal(t, tt.wantStatus, resp.StatusCode)
			body := decode(t, resp)
			if tt.wantFailed == nil {
				assert.Equal(t, tt.wantCode, body["error"].(map[string]any)["code"], "a plain ARM error")
				assert.Empty(t, m.sim.MachineNames())
				return
			}
			assert.Equal(t, tt.wantCode, body["code"], "AKS sends batch errors unwrapped")
			details := body["details"]
			if tt.wantCode == azuresim.BatchMachineInternalServerError {
				var inner map[string]any
				require.NoError(t, json.Unmarshal([]byte(body["message"].(string)), &inner), "details JSON-encoded in the message")
				details = inner["details"]
			}
			failed := map[string]string{}
			for _, d := range details.([]any) {
				failed[d.(map[string]any)["target"].(string)] = d.(map[string]any)["code"].(string)
			}
			assert.Equal(t, tt.wantFailed, failed)
			assert.Equal(t, tt.wantMade, m.sim.MachineNames())
		})
	}
}

// A throttled batch is throttled as a whole, and creates nothing.
func TestMachineBatchTransportFault(t *testing.T) {
	m := newMachineClient(t, azuresim.Options{})
	m.sim.Inject(azuresim.Fault{Kind: azuresim.FaultThrottle, Op: azuresim.OpMachinePut, Count: 1})
	resp := m.putBatch(t, "Standard_D2s_v5", members(3), "")
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Empty(t, m.sim.MachineNames())
	resp = m.putBatch(t, "Standard_D2s_v5", members(3), "")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Len(t, m.sim.MachineNames(), 3)
}
