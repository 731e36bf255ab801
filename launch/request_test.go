package launch_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

func TestRequestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*launch.Request)
		want   string // substring of the error; "" means valid
	}{
		{name: "valid", mutate: func(*launch.Request) {}},
		{name: "dotted name", mutate: func(r *launch.Request) { r.NodeClaimName = "pool.a-1" }},
		{name: "bad name", mutate: func(r *launch.Request) { r.NodeClaimName = "Default_X" }, want: "nodeClaimName"},
		{name: "long name", mutate: func(r *launch.Request) { r.NodeClaimName = string(bytes.Repeat([]byte("a"), 61)) }, want: "nodeClaimName"},
		{name: "no nodepool", mutate: func(r *launch.Request) { r.NodePool = "" }, want: "nodePool"},
		{name: "no candidates", mutate: func(r *launch.Request) { r.Candidates = nil }, want: "candidate"},
		{name: "bad zone", mutate: func(r *launch.Request) { r.Candidates[0].Offerings[0].Zone = "westus2" }, want: "zone"},
		{name: "bad capacity type", mutate: func(r *launch.Request) { r.Candidates[0].Offerings[0].CapacityType = "reserved" }, want: "capacity type"},
		{name: "no vCPUs", mutate: func(r *launch.Request) { r.Candidates[0].VCPUs = 0 }, want: "vCPUs"},
		{name: "two images", mutate: func(r *launch.Request) { r.Image.SharedGalleryID = testSIG }, want: "exactly one"},
		{name: "no image", mutate: func(r *launch.Request) { r.Image = launch.ImageRef{} }, want: "exactly one"},
		{name: "customData not base64", mutate: func(r *launch.Request) { r.CustomData = bootstrap.NewSecret("#!/bin/bash secret") }, want: "customData must be non-empty base64"},
		{name: "no disk size", mutate: func(r *launch.Request) { r.OSDiskSizeGB = 0 }, want: "osDiskSizeGB"},
		{name: "no subnet", mutate: func(r *launch.Request) { r.SubnetID = "" }, want: "subnetID"},
		{name: "no SSH key", mutate: func(r *launch.Request) { r.SSHPublicKey = "" }, want: "sshPublicKey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := request("default-abc12", candidate("Standard_D2s_v5", 2, zonal(0.1)...))
			tt.mutate(req)
			err := req.Validate()
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, launch.ErrInvalidRequest)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), req.CustomData.Reveal())
		})
	}
}

// CustomData carries a bootstrap token: no formatting path may print it.
func TestRequestRedactsCustomData(t *testing.T) {
	req := request("default-abc12", candidate("Standard_D2s_v5", 2, zonal(0.1)...))
	var jsonLog, textLog bytes.Buffer
	slog.New(slog.NewJSONHandler(&jsonLog, nil)).Info("launch", "request", req, "customData", req.CustomData)
	slog.New(slog.NewTextHandler(&textLog, nil)).Info("launch", "request", req)
	marshalled, err := json.Marshal(req)
	require.NoError(t, err)
	outputs := map[string]string{
		"%v":        fmt.Sprintf("%v", req),
		"%+v":       fmt.Sprintf("%+v", req),
		"%#v":       fmt.Sprintf("%#v", req),
		"%s":        fmt.Sprintf("%s", req),
		"%v value":  fmt.Sprintf("%v", *req),
		"%+v value": fmt.Sprintf("%+v", *req),
		"%#v value": fmt.Sprintf("%#v", *req),
		"field":     fmt.Sprint(req.CustomData),
		"json":      string(marshalled),
		"slog json": jsonLog.String(),
		"slog text": textLog.String(),
	}
	for name, out := range outputs {
		assert.NotContains(t, out, testCustomData, name)
	}
	assert.Contains(t, outputs["%v"], "CustomData: <redacted>")
	assert.Contains(t, outputs["%v"], "default-abc12")
}

func TestInstanceString(t *testing.T) {
	inst := &launch.Instance{Name: "aks-x", SKU: "Standard_D2s_v5", Zone: "westus2-1", CapacityType: "spot", State: launch.StateSucceeded, ProviderID: "azure:///x"}
	assert.Equal(t, "Instance{Name: aks-x, SKU: Standard_D2s_v5, Zone: westus2-1, CapacityType: spot, State: Succeeded, ProviderID: azure:///x}", inst.String())
	assert.Equal(t, inst.String(), fmt.Sprintf("%#v", inst))
}
