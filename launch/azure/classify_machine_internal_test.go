package azure

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/napkit/napkit/launch"
	"github.com/stretchr/testify/assert"
)

func responseError(status int, body string) error {
	return runtime.NewResponseError(&http.Response{
		StatusCode: status, Status: http.StatusText(status),
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(bytes.NewBufferString(body)),
		Request: &http.Request{Method: http.MethodPut, URL: &url.URL{Scheme: "https", Host: "management.azure.com", Path: "/machines/m"}},
	})
}

// The AKS Machine API rows of reference table 3.4, and the first detail of a
// provisioning error being the failure that is classified.
func TestClassifyMachineError(t *testing.T) {
	od, spot := launch.CapacityTypeOnDemand, launch.CapacityTypeSpot
	cand := launch.Candidate{SKU: "Standard_D4s_v5", Family: "standardDSv5Family", VCPUs: 4, Offerings: []launch.Offering{
		{Zone: "westus2-1", CapacityType: od, Available: true}, {Zone: "0", CapacityType: od, Available: true},
	}}
	tried := launch.Choice{Candidate: cand, Offering: cand.Offerings[0]}
	at := func(zone, ct string) launch.Placement {
		p := tried.Placement()
		p.Zone, p.CapacityType = zone, ct
		return p
	}
	unsupported := "Virtual Machine size: 'Standard_D4s_v5' is not supported for subscription s in location 'westus2'."
	tests := []struct {
		name         string
		err          error
		provisioning *armErrorBody
		reason       launch.Reason
		marked       []launch.Placement
		ttl          time.Duration
	}{
		{name: "VMSizeNotSupported", err: responseError(400, fmt.Sprintf(`{"error":{"code":"VMSizeNotSupported","message":%q}}`, unsupported)),
			reason: launch.ReasonSKUNotAvailable, marked: []launch.Placement{at("westus2-1", od), at("westus2-1", spot), at("0", od), at("0", spot)}, ttl: 23 * time.Hour},
		{name: "BadRequest: not supported for subscription", err: responseError(400, fmt.Sprintf(`{"error":{"code":"BadRequest","message":%q}}`, unsupported)),
			reason: launch.ReasonSKUNotAvailable, marked: []launch.Placement{at("0", spot)}, ttl: 23 * time.Hour},
		{name: "other BadRequest", err: responseError(400, `{"error":{"code":"BadRequest","message":"maxPods is too large"}}`), reason: launch.ReasonCloudError},
		{name: "provisioning error: its first detail", err: responseError(200, `{"status":"Failed","error":{"code":"MachineProvisioningFailed"}}`),
			provisioning: &armErrorBody{Code: "MachineProvisioningFailed", Details: []armErrorBody{{Code: "ZonalAllocationFailed", Message: "no capacity"}}},
			reason:       launch.ReasonZonalAllocationFailure, marked: []launch.Placement{at("westus2-1", od), at("westus2-1", spot)}, ttl: time.Hour},
		{name: "operation error body with details", err: responseError(200,
			`{"status":"Failed","error":{"code":"MachineProvisioningFailed","details":[{"code":"OverconstrainedZonalAllocationRequest"}]}}`),
			reason: launch.ReasonOverconstrainedZonalAllocation, marked: []launch.Placement{at("westus2-1", od)}, ttl: time.Hour},
		{name: "provisioning error without details", err: responseError(200, `{"status":"Failed"}`),
			provisioning: &armErrorBody{Code: "MachineProvisioningFailed", Message: "image not found"}, reason: launch.ReasonCloudError},
		{name: "not an ARM error", err: io.ErrUnexpectedEOF, reason: launch.ReasonCloudError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			cache := launch.NewUnavailableOfferings(func() time.Time { return now })
			le := classifyMachineError(tt.err, tt.provisioning, "nc", tried, cache)
			assert.Equal(t, tt.reason, le.Reason)
			assert.ErrorIs(t, le, tt.err)
			for _, p := range tt.marked {
				assert.True(t, cache.IsUnavailable(p), p.Key())
			}
			if len(tt.marked) == 0 {
				assert.Zero(t, cache.SeqNum(), "nothing marked")
				return
			}
			now = now.Add(tt.ttl + time.Second)
			for _, p := range tt.marked {
				assert.False(t, cache.IsUnavailable(p), "%s after %v", p.Key(), tt.ttl)
			}
		})
	}
}

func TestMachineNameOfVM(t *testing.T) {
	tests := []struct {
		vm, want string
		ok       bool
	}{
		{vm: "aks-karpenter-default-a1b2c-1a2b3c4d-vm", want: "default-a1b2c", ok: true},
		{vm: "aks-karpenter-x-00000000-vm", want: "x", ok: true},
		{vm: "aks-default-a1b2c"},                        // a VM-mode VM
		{vm: "aks-other-default-a1b2c-1a2b3c4d-vm"},      // another pool
		{vm: "aks-karpenter-default-a1b2c-1a2b3c4-vm"},   // 7 characters
		{vm: "aks-karpenter--1a2b3c4d-vm"},               // no machine name
		{vm: "aks-karpenter-default-a1b2c-1a2b3c4d-vmx"}, // wrong suffix
	}
	for _, tt := range tests {
		got, ok := machineNameOfVM(tt.vm, "karpenter")
		assert.Equal(t, tt.ok, ok, tt.vm)
		assert.Equal(t, tt.want, got, tt.vm)
	}
}
