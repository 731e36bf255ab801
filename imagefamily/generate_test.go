package imagefamily_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/kubeletconfig"
	corev1 "k8s.io/api/core/v1"
)

// generateScript runs Generate in the scriptless mode and parses the script.
func generateScript(t *testing.T, in imagefamily.Input) (*imagefamily.Output, script) {
	t.Helper()
	out, err := imagefamily.Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseScript(string(out.Payload.Reveal()))
	if err != nil {
		t.Fatal(err)
	}
	return out, s
}

func TestGenerateIsDeterministicAndPure(t *testing.T) {
	for _, tc := range goldenCases() {
		in := tc.in()
		labels, taints := maps.Clone(in.Labels), slices.Clone(in.StartupTaints)
		a, err := imagefamily.Generate(in)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := imagefamily.Generate(tc.in())
		if !bytes.Equal(a.Payload.Reveal(), b.Payload.Reveal()) || !bytes.Equal(a.CustomData.Reveal(), b.CustomData.Reveal()) {
			t.Errorf("%s: two runs differ", tc.name)
		}
		if !maps.Equal(in.Labels, labels) || !slices.Equal(in.StartupTaints, taints) {
			t.Errorf("%s: Generate modified its input", tc.name)
		}
	}
}

func TestScriptlessCustomDataIsBase64OfScript(t *testing.T) {
	out, err := imagefamily.Generate(baseInput(shapeD2sV3()))
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := base64.StdEncoding.DecodeString(string(out.CustomData.Reveal()))
	if err != nil || !bytes.Equal(decoded, out.Payload.Reveal()) {
		t.Fatalf("customData does not decode to the script: %v", err)
	}
}

// The script's variables carry exactly what Output reports.
func TestScriptlessVariablesMatchOutput(t *testing.T) {
	out, s := generateScript(t, baseInput(shapeNC24ads()))
	if got := strings.Fields(s.vars["KUBELET_FLAGS"]); !slices.Equal(got, out.KubeletFlags) {
		t.Errorf("KUBELET_FLAGS = %v\nwant %v", got, out.KubeletFlags)
	}
	labels, err := parseLabels(s.vars["KUBELET_NODE_LABELS"])
	if err != nil || !maps.Equal(labels, out.KubeletNodeLabels) {
		t.Errorf("KUBELET_NODE_LABELS = %v, %v\nwant %v", labels, err, out.KubeletNodeLabels)
	}
	want := map[string]string{
		"TLS_BOOTSTRAP_TOKEN": testToken, "KUBERNETES_VERSION": "1.33.2", "GPU_NODE": "true",
		"GPU_DRIVER_TYPE": "cuda-lts", "GPU_DRIVER_VERSION": "580.159.04", "CONFIG_GPU_DRIVER_IF_NEEDED": "true",
		"API_SERVER_NAME": "napkit-dns-12345678.hcp.eastus.azmk8s.io", "SUBNET": "aks-subnet",
		"VIRTUAL_NETWORK": "aks-vnet-12345678", "VIRTUAL_NETWORK_RESOURCE_GROUP": "MC_rg_napkit_eastus",
		"KUBE_CA_CRT": base64.StdEncoding.EncodeToString([]byte(testCA)), "NETWORK_PLUGIN": "none",
		"ENABLE_TLS_BOOTSTRAPPING": "true", "USER_ASSIGNED_IDENTITY_ID": "00000000-0000-0000-0000-000000000003",
	}
	for k, v := range want {
		if s.vars[k] != v {
			t.Errorf("%s = %q, want %q", k, s.vars[k], v)
		}
	}
	containerd, _ := base64.StdEncoding.DecodeString(s.vars["CONTAINERD_CONFIG_CONTENT"])
	if !strings.Contains(string(containerd), `default_runtime_name = "nvidia-container-runtime"`) {
		t.Errorf("GPU node containerd config does not use the NVIDIA runtime:\n%s", containerd)
	}
}

// Reference case 14, under both memory policies: the seed's (default) and the legacy brackets.
func TestScriptlessKubeletFlagsCase14(t *testing.T) {
	for _, tt := range []struct {
		policy              kubeletconfig.Policy
		kubeReserved, evict string
	}{
		{"", "--kube-reserved=cpu=100m,memory=2048Mi", "--eviction-hard=memory.available<100Mi"},
		{kubeletconfig.PolicyAKSBrackets, "--kube-reserved=cpu=100m,memory=1843Mi", "--eviction-hard=memory.available<750Mi"},
	} {
		in := baseInput(shapeD2sV3())
		in.StartupTaints = nil
		in.ReservationPolicy = tt.policy
		in.NodeClass.Spec.Kubelet = &api.KubeletConfiguration{
			CPUManagerPolicy: ptr("static"), CPUCFSQuota: ptr(true), ImageGCHighThresholdPercent: ptr(int32(30)),
			ImageGCLowThresholdPercent: ptr(int32(20)), TopologyManagerPolicy: ptr("best-effort"),
			ContainerLogMaxSize: ptr("42Mi"), ContainerLogMaxFiles: ptr(int32(13)), PodPidsLimit: ptr(int64(99)),
		}
		out, s := generateScript(t, in)
		flags := strings.Fields(s.vars["KUBELET_FLAGS"])
		for _, want := range []string{tt.kubeReserved, tt.evict, "--image-gc-high-threshold=30", "--image-gc-low-threshold=20",
			"--max-pods=250", "--system-reserved=cpu=0,memory=0", "--register-with-taints=karpenter.sh/unregistered:NoExecute",
			"--cpu-manager-policy=static", "--cpu-cfs-quota=true", "--topology-manager-policy=best-effort",
			"--container-log-max-size=42Mi", "--container-log-max-files=13", "--pod-max-pids=99", "--cluster-dns=10.0.0.10"} {
			if !slices.Contains(flags, want) {
				t.Errorf("policy %q: flags lack %s", tt.policy, want)
			}
		}
		for _, f := range flags {
			if strings.HasPrefix(f, "--image-gc-high-threshold=85") || strings.HasPrefix(f, "--pod-max-pids=-1") {
				t.Errorf("base flag %s not overridden by the node class", f)
			}
		}
		if !slices.IsSorted(out.KubeletFlags) {
			t.Error("flags are not sorted")
		}
	}
}

func TestScriptlessVersionedFlags(t *testing.T) {
	tests := []struct {
		version      string
		present, not []string
	}{
		{"1.29.4", []string{"--feature-gates=DisableKubeletCloudCredentialProviders=false", "--keep-terminated-pod-volumes=false",
			"--cloud-config=/etc/kubernetes/azure.json"}, []string{"--image-credential-provider-bin-dir=/var/lib/kubelet/credential-provider"}},
		{"1.31.0", []string{"--image-credential-provider-config=/var/lib/kubelet/credential-provider-config.yaml"},
			[]string{"--keep-terminated-pod-volumes=false"}},
		{"1.34.0", []string{"--pod-infra-container-image=mcr.microsoft.com/oss/kubernetes/pause:3.6"}, []string{"--cloud-config=/etc/kubernetes/azure.json"}},
		{"1.35.1", nil, []string{"--pod-infra-container-image=mcr.microsoft.com/oss/kubernetes/pause:3.6"}},
	}
	for _, tt := range tests {
		in := baseInput(shapeD2sV3())
		in.Cluster = testCluster(tt.version)
		out, _ := generateScript(t, in)
		for _, f := range tt.present {
			if !slices.Contains(out.KubeletFlags, f) {
				t.Errorf("%s: missing %s", tt.version, f)
			}
		}
		for _, f := range tt.not {
			if slices.Contains(out.KubeletFlags, f) {
				t.Errorf("%s: unexpected %s", tt.version, f)
			}
		}
	}
}

// Reference case 15, through the whole pipeline.
func TestScriptlessNetworkCase15(t *testing.T) {
	overlayLabels := map[string]string{"kubernetes.azure.com/azure-cni-overlay": "true", "kubernetes.azure.com/network-subnet": "aks-subnet",
		"kubernetes.azure.com/nodenetwork-vnetguid": "a519e60a-cac0-40b2-b883-084477fe6f5c", "kubernetes.azure.com/podnetwork-type": "overlay"}
	cilium := map[string]string{"kubernetes.azure.com/ebpf-dataplane": "cilium"}
	tests := []struct {
		plugin, mode, dataplane, want string
		labels                        map[string]string
	}{
		{"azure", "", "", "azure", nil},
		{"azure", "overlay", "", "none", overlayLabels},
		{"none", "", "", "none", nil},
		{"azure", "overlay", "cilium", "none", union(overlayLabels, cilium)},
		{"azure", "", "cilium", "none", cilium},
	}
	for _, tt := range tests {
		in := baseInput(shapeD2sV3())
		in.Labels = nil
		in.Cluster.Network = api.ClusterNetwork{Plugin: tt.plugin, PluginMode: tt.mode, Dataplane: tt.dataplane}
		out, s := generateScript(t, in)
		if s.vars["NETWORK_PLUGIN"] != tt.want {
			t.Errorf("%v: NETWORK_PLUGIN = %s, want %s", tt, s.vars["NETWORK_PLUGIN"], tt.want)
		}
		got := map[string]string{}
		for k, v := range out.KubeletNodeLabels {
			if _, known := union(overlayLabels, cilium)[k]; known {
				got[k] = v
			}
		}
		if !maps.Equal(got, tt.labels) && !(len(got) == 0 && tt.labels == nil) {
			t.Errorf("%v: network labels = %v, want %v", tt, got, tt.labels)
		}
	}
}

func union(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

func TestGPUModeNoneSkipsDriver(t *testing.T) {
	in := baseInput(shapeNC24ads())
	in.NodeClass.Spec.GPU = &api.GPU{Mode: ptr(api.GPUModeNone)}
	_, s := generateScript(t, in)
	if s.vars["GPU_NODE"] != "false" || s.vars["GPU_DRIVER_VERSION"] != "" {
		t.Errorf("gpu.mode None: GPU_NODE=%s GPU_DRIVER_VERSION=%s", s.vars["GPU_NODE"], s.vars["GPU_DRIVER_VERSION"])
	}
	machineIn := withMode(in, imagefamily.ModeMachineAPI)
	out, err := imagefamily.Generate(machineIn)
	if err != nil {
		t.Fatal(err)
	}
	if gp := out.Machine.Properties.Hardware.GPUProfile; gp == nil || gp.Driver != "None" {
		t.Errorf("machine GPU profile = %+v, want driver None", gp)
	}
}

func TestTaints(t *testing.T) {
	in := baseInput(shapeD2sV3())
	in.Taints = []corev1.Taint{{Key: "sku", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}, {Key: "sku", Value: "dup", Effect: corev1.TaintEffectNoSchedule}}
	in.StartupTaints = []corev1.Taint{imagefamily.UnregisteredTaint(), {Key: "sku", Value: "x", Effect: corev1.TaintEffectNoSchedule}}
	out, err := imagefamily.Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []corev1.Taint{{Key: "sku", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}, imagefamily.UnregisteredTaint()}
	if !slices.Equal(out.Taints, want) {
		t.Errorf("taints = %v, want %v", out.Taints, want)
	}
	b, err := imagefamily.Generate(withMode(in, imagefamily.ModeBootstrappingClient))
	if err != nil {
		t.Fatal(err)
	}
	p := b.Provision.ProvisionProfile
	if !slices.Equal(p.NodeTaints, []string{"sku=gpu:NoSchedule"}) || !slices.Equal(p.NodeInitializationTaints, []string{"karpenter.sh/unregistered:NoExecute"}) {
		t.Errorf("bootstrap API taints = %v / %v", p.NodeTaints, p.NodeInitializationTaints)
	}
	m, err := imagefamily.Generate(withMode(in, imagefamily.ModeMachineAPI))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Machine.Properties.Kubernetes.NodeInitializationTaints; !slices.Equal(got, []string{"sku=gpu:NoSchedule", "karpenter.sh/unregistered:NoExecute"}) {
		t.Errorf("machine initialization taints = %v", got)
	}
}

func TestClaimLabelsOverrideAndFilter(t *testing.T) {
	in := baseInput(shapeD2sV3())
	in.Labels = map[string]string{"team": "a", api.LabelAKSMode: "system", "node-restriction.kubernetes.io/pool": "x"}
	out, err := imagefamily.Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	if out.NodeLabels["team"] != "a" || out.NodeLabels[api.LabelAKSMode] != "system" {
		t.Errorf("claim labels not merged: %v", out.NodeLabels)
	}
	if _, ok := out.KubeletNodeLabels["node-restriction.kubernetes.io/pool"]; ok {
		t.Error("kubelet labels include a restricted key")
	}
	if out.NodeLabels["node-restriction.kubernetes.io/pool"] != "x" {
		t.Error("restricted label dropped from NodeLabels; the controller must still apply it")
	}
	m, err := imagefamily.Generate(withMode(in, imagefamily.ModeMachineAPI))
	if err != nil {
		t.Fatal(err)
	}
	if m.Machine.Properties.Mode != "System" {
		t.Errorf("machine mode = %s, want System", m.Machine.Properties.Mode)
	}
	for k := range m.Machine.Properties.Kubernetes.NodeLabels {
		if strings.Contains(strings.SplitN(k, "/", 2)[0], "kubernetes.io") {
			t.Errorf("machine labels include %s", k)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*imagefamily.Input)
		want   error
		substr string
	}{
		{"Windows in scriptless", func(in *imagefamily.Input) { in.NodeClass.Spec.ImageFamily = ptr("Windows2022") }, imagefamily.ErrUnsupported, "aksmachineapi"},
		{"Windows in bootstrapping client", func(in *imagefamily.Input) {
			in.Mode = imagefamily.ModeBootstrappingClient
			in.NodeClass.Spec.ImageFamily = ptr("Windows2025")
		}, imagefamily.ErrUnsupported, "bootstrappingclient"},
		{"FIPS Ubuntu2404", func(in *imagefamily.Input) {
			in.NodeClass.Spec.ImageFamily, in.NodeClass.Spec.FIPSMode = ptr("Ubuntu2404"), ptr(api.FIPSModeFIPS)
		}, imagefamily.ErrUnsupported, "Ubuntu2404"},
		{"bad label value", func(in *imagefamily.Input) { in.Labels["team"] = "a;reboot" }, bootstrap.ErrInvalid, `"a;reboot"`},
		{"bad label key", func(in *imagefamily.Input) { in.Labels["$(id)"] = "x" }, bootstrap.ErrInvalid, `"$(id)"`},
		{"bad taint", func(in *imagefamily.Input) {
			in.Taints = []corev1.Taint{{Key: "k", Value: "`id`", Effect: corev1.TaintEffectNoSchedule}}
		}, bootstrap.ErrInvalid, "`id`"},
		{"bad kubelet setting", func(in *imagefamily.Input) {
			in.NodeClass.Spec.Kubelet = &api.KubeletConfiguration{AllowedUnsafeSysctls: []string{"kernel.panic"}}
		}, kubeletconfig.ErrInvalid, "kernel.panic"},
		{"missing token", func(in *imagefamily.Input) { in.Cluster.BootstrapToken = bootstrap.Secret{} }, bootstrap.ErrInvalid, "bootstrap token"},
		{"bad subnet", func(in *imagefamily.Input) { in.Cluster.SubnetID = "/subscriptions/x" }, bootstrap.ErrInvalid, "subnet ID"},
		{"bad shape", func(in *imagefamily.Input) { in.Shape.Arch = "ppc64le" }, imagefamily.ErrInvalid, "ppc64le"},
		{"kubenet", func(in *imagefamily.Input) { in.Cluster.Network.Plugin = api.NetworkPluginKubenet }, bootstrap.ErrUnsupported, "kubenet"},
		{"machine API from community gallery", func(in *imagefamily.Input) {
			in.Mode, in.Images.Gallery = imagefamily.ModeMachineAPI, imagefamily.CommunityGallery
		}, imagefamily.ErrUnsupported, "shared image gallery"},
		{"no image version", func(in *imagefamily.Input) { in.Images.Available = nil }, imagefamily.ErrNoImageVersion, "2204gen2containerd"},
		{"unknown mode", func(in *imagefamily.Input) { in.Mode = "vmss" }, imagefamily.ErrInvalid, "vmss"},
	}
	for _, tt := range tests {
		in := baseInput(shapeD2sV3())
		tt.mutate(&in)
		_, err := imagefamily.Generate(in)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.substr) {
			t.Errorf("%s: error = %v, want %v naming %q", tt.name, err, tt.want, tt.substr)
		}
		if err != nil && strings.Contains(err.Error(), testToken) {
			t.Errorf("%s: error reveals the token", tt.name)
		}
	}
}

func TestMachineNameAndSpotZones(t *testing.T) {
	in := withMode(baseInput(shapeD2sV3()), imagefamily.ModeMachineAPI)
	in.NodeClaim = "123456789-123456789-123456789-a1b2c"
	in.Zone = "0"
	in.CapacityType = api.CapacityTypeSpot
	out, err := imagefamily.Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	if out.MachineName != bootstrap.MachineName(in.NodeClaim) || len(out.MachineName) != 34 {
		t.Errorf("machine name = %q", out.MachineName)
	}
	p := out.Machine.Properties
	if out.Machine.Zones != nil || p.Priority != "Spot" || p.EvictionPolicy != "Delete" || p.BillingProfile == nil {
		t.Errorf("regional spot machine = zones %v, %+v", out.Machine.Zones, p)
	}
	if out.NodeLabels[api.LabelPlacementScope] != "regional" || out.NodeLabels[api.LabelZone] != "0" {
		t.Errorf("regional labels = %s / %s", out.NodeLabels[api.LabelPlacementScope], out.NodeLabels[api.LabelZone])
	}
}
