package imagefamily_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
)

// fullNodeClassInput is an Azure Linux node with custom Linux OS settings, LocalDNS Required and
// Ultra SSD, in mode.
func fullNodeClassInput(mode imagefamily.Mode) imagefamily.Input {
	in := withMode(azureLinuxInput(shapeD16plds()), mode)
	in.NodeClass.Spec.LinuxOSConfig = &api.LinuxOSConfiguration{
		SwapFileSize: ptr("1500Mi"), TransparentHugePageEnabled: ptr("madvise"), TransparentHugePageDefrag: ptr("defer+madvise"),
		Sysctls: &api.SysctlSettings{NetCoreSomaxconn: ptr(int32(16384)), VMMaxMapCount: ptr(int32(262144)),
			NetIPv4IPLocalPortRange: ptr("32768 60999"), NetIPv4TCPTwReuse: ptr(true)},
	}
	in.NodeClass.Spec.Kubelet = &api.KubeletConfiguration{FailSwapOn: ptr(false)}
	in.NodeClass.Spec.LocalDNS = &api.LocalDNS{Mode: api.LocalDNSModeRequired}
	in.UltraSSD = true
	if mode.IsMachineAPI() {
		in.Images.Gallery = imagefamily.SharedImageGallery
	}
	return in
}

// TestMachineBodyCarriesTheNodeClass checks the AKS Machine body fields the bootstrapping-client
// payload also has: linuxOSConfig (swap in MiB, sysctls under the AKS names, transparent huge
// pages), ultraSsdEnabled, sshAccess LocalUser and the LocalDNS profile.
// upstream: pkg/providers/instance/aksmachineinstancehelpers.go (buildAKSMachineTemplate,
// configureLinuxOSConfig, configureSysctlConfig, configureLocalDNSProfile)
func TestMachineBodyCarriesTheNodeClass(t *testing.T) {
	tests := []struct {
		name string
		path []string
		want any
	}{
		{"ultra SSD", []string{"properties", "hardware", "ultraSsdEnabled"}, true},
		{"ssh access", []string{"properties", "security", "sshAccess"}, "LocalUser"},
		{"swap MiB", []string{"properties", "operatingSystem", "linuxProfile", "linuxOSConfig", "swapFileSizeMB"}, 1500.0},
		{"THP enabled", []string{"properties", "operatingSystem", "linuxProfile", "linuxOSConfig", "transparentHugePageEnabled"}, "madvise"},
		{"THP defrag", []string{"properties", "operatingSystem", "linuxProfile", "linuxOSConfig", "transparentHugePageDefrag"}, "defer+madvise"},
		{"somaxconn", []string{"properties", "operatingSystem", "linuxProfile", "linuxOSConfig", "sysctls", "netCoreSomaxconn"}, 16384.0},
		{"port range", []string{"properties", "operatingSystem", "linuxProfile", "linuxOSConfig", "sysctls", "netIpv4IpLocalPortRange"}, "32768 60999"},
		{"tw reuse", []string{"properties", "operatingSystem", "linuxProfile", "linuxOSConfig", "sysctls", "netIpv4TcpTwReuse"}, true},
		{"local DNS", []string{"properties", "localDNSProfile", "mode"}, "Required"},
		{"ultra SSD label", []string{"properties", "kubernetes", "nodeLabels", api.LabelSKUUltraSSD}, "true"},
	}
	out, err := imagefamily.Generate(fullNodeClassInput(imagefamily.ModeMachineAPI))
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.Unmarshal(out.Payload.RedactedBytes(), &body))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v any = body
			for _, k := range tc.path {
				m, ok := v.(map[string]any)
				require.True(t, ok, "%v at %s", tc.path, k)
				v = m[k]
			}
			assert.Equal(t, tc.want, v)
		})
	}
}

// TestGoldenFullNodeClass renders the same node class through the bootstrapping client and the
// Machine API, so the two bodies can be read side by side.
func TestGoldenFullNodeClass(t *testing.T) {
	for name, mode := range map[string]imagefamily.Mode{
		"bootstrappingclient-linuxos-localdns-ultrassd": imagefamily.ModeBootstrappingClient,
		"aksmachineapi-linuxos-localdns-ultrassd":       imagefamily.ModeMachineAPI,
	} {
		t.Run(name, func(t *testing.T) {
			out, err := imagefamily.Generate(fullNodeClassInput(mode))
			require.NoError(t, err)
			checkGolden(t, name, goldenText(t, out))
		})
	}
}
