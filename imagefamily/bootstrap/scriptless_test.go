package bootstrap

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/napkit/napkit/api"
	corev1 "k8s.io/api/core/v1"
)

func testCluster() Cluster {
	return Cluster{
		ClusterName: "napkit", KubernetesVersion: "1.33.2", APIServerHost: "10.1.2.3",
		CACertificate:  []byte("-----BEGIN CERTIFICATE-----\nTUlJ\n-----END CERTIFICATE-----\n"),
		BootstrapToken: NewSecret(token), TenantID: "00000000-0000-0000-0000-000000000002",
		SubscriptionID: "00000000-0000-0000-0000-000000000001", NodeResourceGroup: "MC_rg", Location: "eastus",
		SubnetID: "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/sn",
		Network:  api.DefaultClusterNetwork(),
	}
}

func testScriptless() ScriptlessInput {
	return ScriptlessInput{Cluster: testCluster(), Arch: "arm64", KubeletFlags: []string{"--max-pods=110", "--image-gc-high-threshold=90"},
		Labels: map[string]string{"team": "a", "node-restriction.kubernetes.io/x": "y"},
		Taints: []corev1.Taint{{Key: "k", Value: "v", Effect: corev1.TaintEffectNoSchedule}}}
}

func TestRenderScriptless(t *testing.T) {
	s, err := RenderScriptless(testScriptless())
	if err != nil {
		t.Fatal(err)
	}
	script := string(s.Script.Reveal())
	for _, want := range []string{"TLS_BOOTSTRAP_TOKEN='" + token + "'\n", "KUBELET_NODE_LABELS='team=a'\n",
		"CNI_PLUGINS_URL='https://acs-mirror.azureedge.net/cni-plugins/v1.1.1/binaries/cni-plugins-linux-arm64-v1.1.1.tgz'\n",
		"GPU_NODE='false'\n", "NETWORK_SECURITY_GROUP=''\n", "TARGET_CLOUD='AzurePublicCloud'\n"} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q", want)
		}
	}
	for _, want := range []string{"--max-pods=110", "--image-gc-high-threshold=90", "--register-with-taints=k=v:NoSchedule", "--anonymous-auth=false"} {
		if !slices.Contains(s.KubeletFlags, want) {
			t.Errorf("flags lack %s", want)
		}
	}
	if slices.Contains(s.KubeletFlags, "--image-gc-high-threshold=85") {
		t.Error("base flag not overridden")
	}
	if strings.Contains(s.Script.String(), token) || !strings.Contains(s.Script.String(), "TLS_BOOTSTRAP_TOKEN='<redacted>'") {
		t.Error("redacted script wrong")
	}
}

func TestScriptVariablesAreUnique(t *testing.T) {
	in := testScriptless()
	vars, err := scriptVariables(in, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, v := range vars {
		if seen[v.name] {
			t.Errorf("variable %s set twice", v.name)
		}
		seen[v.name] = true
	}
}

func TestRenderScriptlessErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*ScriptlessInput)
		substr string
	}{
		{"taint flag", func(in *ScriptlessInput) {
			in.KubeletFlags = append(in.KubeletFlags, "--register-with-taints=a:NoSchedule")
		}, "taints are passed"},
		{"duplicate flag", func(in *ScriptlessInput) { in.KubeletFlags = append(in.KubeletFlags, "--max-pods=5") }, "twice"},
		{"flag with space", func(in *ScriptlessInput) { in.KubeletFlags = append(in.KubeletFlags, "--node-labels=a b") }, "a b"},
		{"arch", func(in *ScriptlessInput) { in.Arch = "x86" }, "x86"},
		{"host", func(in *ScriptlessInput) { in.Cluster.APIServerHost = "evil.com;reboot" }, "API server host"},
		{"CA", func(in *ScriptlessInput) { in.Cluster.CACertificate = []byte("not pem") }, "PEM"},
		{"tenant", func(in *ScriptlessInput) { in.Cluster.TenantID = "x" }, "tenant ID"},
		{"location", func(in *ScriptlessInput) { in.Cluster.Location = "East US" }, "location"},
		{"cluster id", func(in *ScriptlessInput) { in.Cluster.ClusterID = "1234" }, "cluster ID"},
		{"cluster DNS", func(in *ScriptlessInput) { in.Cluster.ClusterDNS = "dns" }, "cluster DNS"},
		{"version", func(in *ScriptlessInput) { in.Cluster.KubernetesVersion = "1.33.2-rc.1" }, "Kubernetes version"},
		{"subnet segment", func(in *ScriptlessInput) {
			in.Cluster.SubnetID = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/r$g/providers/Microsoft.Network/virtualNetworks/v/subnets/s"
		}, "r$g"},
		{"calico", func(in *ScriptlessInput) { in.Cluster.Network.Policy = api.NetworkPolicyCalico }, "Calico"},
	}
	for _, tt := range tests {
		in := testScriptless()
		tt.mutate(&in)
		_, err := RenderScriptless(in)
		if err == nil || !strings.Contains(err.Error(), tt.substr) {
			t.Errorf("%s: error = %v, want mention of %q", tt.name, err, tt.substr)
		}
		if err != nil && !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: error %v wraps no sentinel", tt.name, err)
		}
	}
}

func TestBuildProvisionValues(t *testing.T) {
	v, err := BuildProvisionValues(ProvisionInput{
		Cluster: testCluster(), Arch: "arm64", OSSKU: "AzureLinux", Distro: "aks-azurelinux-v3-arm64-gen2", VMSize: "Standard_D16plds_v5",
		Labels:        map[string]string{api.LabelAKSMode: "system", "kubernetes.io/role": "x"},
		StartupTaints: []corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoExecute}}, MaxPods: 30, EphemeralOSDisk: true,
		GPU: &GPUDriver{Type: GPUDriverGRID}, SKUCPU: 16, SKUMemoryGiB: 31.5, SecureBoot: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	p := v.ProvisionProfile
	if p.Architecture != "Arm64" || p.Mode != "System" || p.StorageProfile != "Ephemeral" || p.GPUProfile.DriverType != "GRID" ||
		!p.SecurityProfile.EnableSecureBoot || v.ProvisionHelperValues.SKUMemory != 32 || len(p.CustomNodeLabels) != 1 ||
		!slices.Equal(p.NodeInitializationTaints, []string{"a:NoExecute"}) || p.NodeTaints != nil {
		t.Errorf("profile = %+v, helpers %+v", p, v.ProvisionHelperValues)
	}
	if _, err := BuildProvisionValues(ProvisionInput{Cluster: testCluster(), Arch: "amd64"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("maxPods 0 error = %v", err)
	}
}
