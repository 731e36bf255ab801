package bootstrap

import (
	"errors"
	"maps"
	"testing"

	"github.com/napkit/napkit/api"
)

// Reference case 9, and every converged size.
// upstream: pkg/utils/gpu.go (ConvergedGPUDriverSizes, rtxPro6000GPUDriverSizes), pkg/utils/gpu_test.go
func TestDriverForSKU(t *testing.T) {
	grid := GPUDriver{GPUDriverGRID, "570.211.01", "20260522192315"}
	lts := GPUDriver{GPUDriverCUDALTS, "580.159.04", "20260629214430"}
	tests := []struct {
		sku  string
		want GPUDriver
	}{
		{"standard_nc8ads_a10_v4", GPUDriver{GPUDriverGRID, "570.211.01", "20260522192315"}},
		{"Standard_NV36ads_A10_v5", GPUDriver{GPUDriverGRID, "570.211.01", "20260522192315"}},
		{"standard_nc144ds_xl_rtxpro6000bse_v6", GPUDriver{GPUDriverGRIDv20, "595.58.03", "20260609172331"}},
		{"Standard_NC144ds_xl_RTXPRO6000BSE_v6", GPUDriver{GPUDriverGRIDv20, "595.58.03", "20260609172331"}},
		{"standard_nc6s_v3", lts},
		{"standard_nc6s_v2", lts},
		{"standard_nc6s", GPUDriver{GPUDriverCUDA, "470.82.01", lts.ImageSHA}},
		{"standard_nv6", lts},
		{"unknown_sku", lts},
		{"Standard_NC24ads_A100_v4", lts},
		{"Standard_NV36adms_A10_v5", grid}, // not an "ads" name, still converged
		{"Standard_NV6ads_A10_v5", grid}, {"Standard_NV12ads_A10_v5", grid}, {"Standard_NV18ads_A10_v5", grid},
		{"Standard_NV72ads_A10_v5", grid}, {"Standard_NC16ads_A10_v4", grid}, {"Standard_NC32ads_A10_v4", grid},
		{"Standard_NC24lds_xl_RTXPRO6000BSE_v6", GPUDriver{GPUDriverGRIDv20, "595.58.03", "20260609172331"}},
		{"Standard_NC288lds_xl_RTXPRO6000BSE_v6", GPUDriver{GPUDriverGRIDv20, "595.58.03", "20260609172331"}},
		{"Standard_NV12s_v3", lts}, {"Standard_NC4as_T4_v3", lts}, {"Standard_ND96isr_H100_v5", lts},
		{"Standard_NC24r", GPUDriver{GPUDriverCUDA, "470.82.01", lts.ImageSHA}},
	}
	for _, tt := range tests {
		if got := DriverForSKU(tt.sku); got != tt.want {
			t.Errorf("DriverForSKU(%q) = %+v, want %+v", tt.sku, got, tt.want)
		}
	}
}

// Reference case 13.
func TestDownloadURLs(t *testing.T) {
	for _, v := range []string{"1.24.5", "1.25.2", "1.26.0", "1.27.1", "1.33.7"} {
		got, err := KubeBinaryURL(v, "amd64")
		if want := "https://acs-mirror.azureedge.net/kubernetes/v" + v + "/binaries/kubernetes-node-linux-amd64.tar.gz"; err != nil || got != want {
			t.Errorf("KubeBinaryURL(%s) = %q, %v", v, got, err)
		}
	}
	for _, v := range []string{"1.34.0", "1.35.5"} {
		if got, err := KubeBinaryURL(v, "amd64"); err != nil || got != "" {
			t.Errorf("KubeBinaryURL(%s) = %q, %v; want empty", v, got, err)
		}
	}
	tests := []struct{ version, cp string }{
		{"1.33.0", "1.33.0"}, {"1.34.2", "1.33.0"}, {"1.32.0", "1.32.5"}, {"1.31.0", "1.31.6"},
		{"1.30.0", "1.30.12"}, {"1.30.2", "1.30.12"}, {"1.29.9", ""}, {"1.28.7", ""},
	}
	for _, tt := range tests {
		for _, arch := range []string{"amd64", "arm64"} {
			got, err := CredentialProviderURL(tt.version, arch)
			want := ""
			if tt.cp != "" {
				want = "https://acs-mirror.azureedge.net/cloud-provider-azure/v" + tt.cp +
					"/binaries/azure-acr-credential-provider-linux-" + arch + "-v" + tt.cp + ".tar.gz"
			}
			if err != nil || got != want {
				t.Errorf("CredentialProviderURL(%s, %s) = %q, %v; want %q", tt.version, arch, got, err, want)
			}
		}
	}
	if _, err := KubeBinaryURL("one.two", "amd64"); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad version error = %v", err)
	}
}

// Reference case 15.
func TestNetwork(t *testing.T) {
	overlay := map[string]string{LabelAzureCNIOverlay: "true", LabelNetworkSubnet: "aks-subnet",
		LabelVNETGUID: "a519e60a-cac0-40b2-b883-084477fe6f5c", LabelPodNetworkType: "overlay", LabelStatelessCNI: "false"}
	withCilium := maps.Clone(overlay)
	withCilium[LabelEBPFDataplane] = "cilium"
	tests := []struct {
		plugin, mode, dataplane, want string
		labels                        map[string]string
	}{
		{"azure", "", "", "azure", map[string]string{}},
		{"azure", "overlay", "", "none", overlay},
		{"none", "", "", "none", map[string]string{}},
		{"azure", "overlay", "cilium", "none", withCilium},
		{"azure", "", "cilium", "none", map[string]string{LabelEBPFDataplane: "cilium"}},
	}
	for _, tt := range tests {
		got, err := Network(NetworkInput{
			Network:    api.ClusterNetwork{Plugin: tt.plugin, PluginMode: tt.mode, Dataplane: tt.dataplane},
			SubnetName: "aks-subnet", VNETGUID: "a519e60a-cac0-40b2-b883-084477fe6f5c", KubernetesVersion: "1.33.0",
		})
		if err != nil || got.Plugin != tt.want || !maps.Equal(got.Labels, tt.labels) {
			t.Errorf("Network(%s,%s,%s) = %+v, %v; want %s %v", tt.plugin, tt.mode, tt.dataplane, got, err, tt.want, tt.labels)
		}
	}
	got, _ := Network(NetworkInput{Network: api.DefaultClusterNetwork(), KubernetesVersion: "1.34.0"})
	if got.Labels[LabelStatelessCNI] != "true" {
		t.Errorf("1.34 overlay: stateless CNI = %q", got.Labels[LabelStatelessCNI])
	}
	for _, bad := range []api.ClusterNetwork{
		{Plugin: "kubenet"}, {Plugin: "azure", Policy: "calico"}, {Plugin: "azure", PluginMode: "dynamic"},
		{Plugin: "azure", Dataplane: "ebpf"}, {Plugin: "azure", IPFamilies: []string{"IPv4", "IPv6"}}, {},
	} {
		if _, err := Network(NetworkInput{Network: bad}); !errors.Is(err, ErrUnsupported) {
			t.Errorf("Network(%+v) error = %v, want ErrUnsupported", bad, err)
		}
	}
}

// Reference case 19.
func TestMachineName(t *testing.T) {
	if got := MachineName("default-a1b2c"); got != "default-a1b2c" {
		t.Errorf("short name changed: %s", got)
	}
	name34 := "123456789-123456789-1234567-a1b2c"
	name34 += "x"
	if len(name34) != 34 || MachineName(name34) != name34 {
		t.Errorf("34-char name changed: %s", MachineName(name34))
	}
	long := "123456789-123456789-123456789-a1b2c"
	got := MachineName(long)
	if len(got) != 34 || got[:22] != "123456789-123456789-12" || got[len(got)-6:] != "-a1b2c" {
		t.Errorf("MachineName(%s) = %s", long, got)
	}
	if MachineName(long) != got {
		t.Error("MachineName is not deterministic")
	}
	if other := MachineName("123456789-123456789-123456789-a1b2d"); other == got {
		t.Error("different names collide")
	}
	if other := MachineName("123456789-123456789-123456789x-a1b2c"); other == got || len(other) != 34 {
		t.Errorf("different prefix gives %s", other)
	}
	noDash := "abcdefghijabcdefghijabcdefghijabcdefghij"
	if got := MachineName(noDash); len(got) != 34 || got[:28] != noDash[:28] {
		t.Errorf("MachineName(no dash) = %s", got)
	}
	longSuffix := "a-" + noDash
	if got := MachineName(longSuffix); len(got) != 34 {
		t.Errorf("MachineName(long suffix) = %s (%d)", got, len(got))
	}
}

// Reference case 20: unit conversions for the AKS kubelet block.
func TestContainerLogMaxSizeMB(t *testing.T) {
	tests := []struct {
		in   string
		want int32
		ok   bool
	}{
		{"50Mi", 50, true}, {"1024Mi", 1024, true}, {"1Gi", 1024, true}, {"1048576Ki", 1024, true},
		{"invalid", 0, false}, {"", 0, false}, {"512Ki", 0, false}, {"9Ei", 2147483647, true},
	}
	for _, tt := range tests {
		got := ContainerLogMaxSizeMB(tt.in)
		if (got != nil) != tt.ok || (got != nil && *got != tt.want) {
			t.Errorf("ContainerLogMaxSizeMB(%q) = %v, want %d (ok %v)", tt.in, deref(got), tt.want, tt.ok)
		}
	}
}

func TestPodMaxPids(t *testing.T) {
	v := func(n int64) *int64 { return &n }
	tests := []struct {
		in   *int64
		want *int32
	}{
		{v(1000), ptr32(1000)}, {v(2147483648), ptr32(2147483647)}, {nil, nil}, {v(-5), ptr32(-1)},
	}
	for _, tt := range tests {
		got := PodMaxPids(tt.in)
		if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
			t.Errorf("PodMaxPids(%v) = %v, want %v", deref(tt.in), deref(got), deref(tt.want))
		}
	}
}

// Reference case 20: the bootstrap API's helper memory recovers the advertised size from the
// catalogue's capacity for every overhead the catalogue allows.
func TestNominalMemoryGiB(t *testing.T) {
	for gib := int64(1); gib <= 2000; gib++ {
		for pct := 0; pct <= 25; pct++ {
			overhead := float64(pct) / 100
			nominal := float64(gib << 30)
			capacity := int64(nominal) - int64(ceil(nominal*overhead))
			if got := NominalMemoryGiB(capacity, overhead); got != float64(gib) {
				t.Fatalf("NominalMemoryGiB(%d GiB, %v) = %v", gib, overhead, got)
			}
		}
	}
}

func ceil(f float64) float64 {
	i := float64(int64(f))
	if i < f {
		return i + 1
	}
	return i
}

func ptr32(n int32) *int32 { return &n }

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestParseSubnetID(t *testing.T) {
	got, err := ParseSubnetID("/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/sn")
	if err != nil || got != (Subnet{"s", "rg", "vnet", "sn"}) {
		t.Errorf("ParseSubnetID = %+v, %v", got, err)
	}
	if _, err := ParseSubnetID("/subscriptions/s/resourceGroups/rg"); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad subnet error = %v", err)
	}
}

func FuzzMachineName(f *testing.F) {
	f.Add("default-a1b2c")
	f.Add("123456789-123456789-123456789-a1b2c")
	f.Add("-")
	f.Fuzz(func(t *testing.T, name string) {
		got := MachineName(name)
		if len(name) <= MaxMachineNameLength && got != name {
			t.Fatalf("short name %q changed to %q", name, got)
		}
		if len(name) > MaxMachineNameLength && (len(got) != MaxMachineNameLength || MachineName(name) != got) {
			t.Fatalf("MachineName(%q) = %q", name, got)
		}
	})
}
