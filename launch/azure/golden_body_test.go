package azure_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestGoldenVMAndNICBodies launches one NodeClaim through the one path (RequestFor, then the Azure
// launcher on the simulated Azure) per setting, and keeps the NIC and VM bodies the SDK clients sent.
// customData carries the bootstrap token, so it is replaced by <redacted>.
// upstream: pkg/providers/instance/vminstance.go (newNetworkInterfaceForVM: ipconfig1..ipconfig<maxPods-1>
// only for Azure CNI without overlay; newVMObject and setVMPropertiesSecurityProfile,
// setVMPropertiesOSDiskEncryption, setVMPropertiesAdditionalCapabilities)
func TestGoldenVMAndNICBodies(t *testing.T) {
	tests := []struct {
		name      string
		mutate    func(*launch.RequestOptions)
		ipConfigs int
	}{
		{"overlay", func(*launch.RequestOptions) {}, 1},
		{"nodesubnet-maxpods30", func(o *launch.RequestOptions) {
			o.Cluster.Network.PluginMode = ""
			o.NodeClass.Spec.MaxPods = new(int32(30))
		}, 30},
		{"trustedlaunch", func(o *launch.RequestOptions) {
			o.NodeClass.Spec.Security = &api.Security{SecureBoot: new(true), VTPM: new(true)}
		}, 1},
		{"encryption-identities-ultrassd", func(o *launch.RequestOptions) {
			o.NodeClass.Spec.Security = &api.Security{EncryptionAtHost: new(true)}
			o.Cluster.DiskEncryptionSetID = desID
			o.Cluster.NodeIdentities = []string{identity1, identity2}
			o.NodeClaim.Spec.Requirements = append(o.NodeClaim.Spec.Requirements, api.NodeSelectorRequirementWithMinValues{
				Key: api.LabelSKUUltraSSD, Operator: "In", Values: []string{"true"}})
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := requestOptions(t, imagefamily.ModeScriptless, "Standard_D2s_v3")
			tc.mutate(&opts)
			req, err := launch.RequestFor(context.Background(), opts)
			require.NoError(t, err)
			f := newFixture(t, catalogueSim(launch.InstanceTypesFor(opts.NodeClaim, opts.Catalogue)),
				func(o *azure.Options) { o.DisableNetworkLookup = true })
			_, err = f.launcher.Create(context.Background(), req)
			require.NoError(t, err)
			nic := lastPut(t, f.sim, "nic.put", "aks-default-x7k2p")
			vm := lastPut(t, f.sim, "vm.put", "aks-default-x7k2p")
			assert.Len(t, field(nic, "properties.ipConfigurations"), tc.ipConfigs)
			vm["properties"].(map[string]any)["osProfile"].(map[string]any)["customData"] = "<redacted>"
			checkGolden(t, tc.name, map[string]any{"nic": nic, "vm": vm})
		})
	}
}

func checkGolden(t *testing.T, name string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(v))
	got := buf.Bytes()
	path := filepath.Join("testdata", name+".golden.json")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./launch/azure -run Golden -update to create it")
	assert.True(t, bytes.Equal(want, got), "%s differs; run go test ./launch/azure -run Golden -update and review the diff\n%s", path, got)
}

// TestARMRefusesWhatTheOldPathSent: the simulated ARM refuses the bodies the controller's old
// hand-built request produced, and RequestFor's request is accepted. A trusted-launch node class boots a
// TL-only image, which needs securityType TrustedLaunch on the VM (the old request dropped it); the
// launcher classifies the refusal as not offering-specific, tries no other offering and leaves no NIC.
// An Azure CNI node-subnet NIC of 250 pods (the most maxPods allows) fits ARM's 256 IP configurations.
func TestARMRefusesWhatTheOldPathSent(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*launch.RequestOptions)
		damage  func(*launch.Request) // what the old path left out
		refused bool
	}{
		{"trusted launch kept", func(o *launch.RequestOptions) {
			o.NodeClass.Spec.Security = &api.Security{SecureBoot: new(true), VTPM: new(true)}
		}, func(*launch.Request) {}, false},
		{"trusted launch dropped", func(o *launch.RequestOptions) {
			o.NodeClass.Spec.Security = &api.Security{SecureBoot: new(true), VTPM: new(true)}
		}, func(r *launch.Request) { r.TrustedLaunch = launch.TrustedLaunch{} }, true},
		{"node subnet 250 pods", func(o *launch.RequestOptions) {
			o.Cluster.Network.PluginMode = ""
			o.NodeClass.Spec.MaxPods = new(int32(250))
		}, func(*launch.Request) {}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := requestOptions(t, imagefamily.ModeScriptless, "Standard_D2s_v3", "Standard_D4s_v3")
			tc.mutate(&opts)
			req, err := launch.RequestFor(context.Background(), opts)
			require.NoError(t, err)
			tc.damage(req)
			f := newFixture(t, catalogueSim(launch.InstanceTypesFor(opts.NodeClaim, opts.Catalogue)),
				func(o *azure.Options) { o.DisableNetworkLookup = true })
			_, err = f.launcher.Create(context.Background(), req)
			if !tc.refused {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.NotErrorIs(t, err, launch.ErrInsufficientCapacity)
			assert.ErrorContains(t, err, "'TrustedLaunch' security type")
			assert.Len(t, f.sim.RequestsFor("vm.put", "aks-default-x7k2p"), 1, "no other offering is tried: it would be refused too")
			assert.Empty(t, f.sim.NICNames(), "the attempt's NIC is cleaned up")
			assert.Empty(t, f.sim.VMNames())
		})
	}
}
