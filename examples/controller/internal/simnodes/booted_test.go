package simnodes

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch/azuresim"
)

// BootedVersion reads the version the VM's last PUT's bootstrap script exports.
func TestBootedVersion(t *testing.T) {
	script := func(lines string) string {
		return base64.StdEncoding.EncodeToString([]byte("#!/bin/bash\nexport X=1\n" + lines + "\n"))
	}
	tests := []struct {
		name       string
		customData []string // one VM PUT per entry, in order
		want       string
		ok         bool
	}{
		{name: "the script's version", customData: []string{script("KUBERNETES_VERSION='1.36.5'")}, want: "v1.36.5", ok: true},
		{name: "the last PUT wins", customData: []string{script("KUBERNETES_VERSION='1.36.5'"), script("KUBERNETES_VERSION='1.37.2'")},
			want: "v1.37.2", ok: true},
		{name: "no PUT of the VM"},
		{name: "customData that is not base64", customData: []string{"not base64!"}},
		{name: "a script exporting no version", customData: []string{script("KUBE_BINARY_URL='x'")}},
		{name: "a version that is not major.minor.patch", customData: []string{script("KUBERNETES_VERSION='1.36'")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := azuresim.New(azuresim.Options{})
			client := sim.HTTPClient()
			url := fmt.Sprintf("https://management.azure.com/subscriptions/%s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm-1?api-version=2024-07-01",
				sim.SubscriptionID())
			for _, cd := range tt.customData {
				body, err := json.Marshal(map[string]any{"location": sim.Location(),
					"properties": map[string]any{"osProfile": map[string]any{"customData": cd}}})
				require.NoError(t, err)
				req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(body))
				require.NoError(t, err)
				req.Header.Set("Authorization", "Bearer "+azuresim.Token)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				require.NoError(t, err)
				require.NoError(t, resp.Body.Close())
			}
			got, ok := BootedVersion(sim)("vm-1")
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}
