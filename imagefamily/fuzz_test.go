package imagefamily_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/kubeletconfig"
	corev1 "k8s.io/api/core/v1"
)

// fuzzScript runs Generate and either checks the error is a clear rejection or returns the parsed
// script, after checking nothing outside the variable block depends on the input.
func fuzzScript(t *testing.T, in imagefamily.Input, baseline script) (*imagefamily.Output, *script) {
	out, err := imagefamily.Generate(in)
	if err != nil {
		if !errors.Is(err, bootstrap.ErrInvalid) && !errors.Is(err, kubeletconfig.ErrInvalid) &&
			!errors.Is(err, imagefamily.ErrInvalid) {
			t.Fatalf("unexpected error kind: %v", err)
		}
		if strings.Contains(err.Error(), testToken) {
			t.Fatal("error reveals the token")
		}
		return nil, nil
	}
	s, err := parseScript(string(out.Payload.Reveal()))
	if err != nil {
		t.Fatalf("script does not parse: %v", err)
	}
	if s.header != baseline.header || s.footer != baseline.footer {
		t.Fatal("input changed the script outside its variable block")
	}
	return out, &s
}

func baselineScript(f *testing.F) script {
	out, err := imagefamily.Generate(baseInput(shapeD2sV3()))
	if err != nil {
		f.Fatal(err)
	}
	s, err := parseScript(string(out.Payload.Reveal()))
	if err != nil {
		f.Fatal(err)
	}
	return s
}

func FuzzLabels(f *testing.F) {
	for _, seed := range [][2]string{{"team", "a"}, {"example.com/x", "$(reboot)"}, {"a'b", "c"}, {"k", "x' ; id ; '"},
		{"kubernetes.io/secret", "v"}, {"k", "a,b=c"}, {"k", "\n"}, {"", ""}} {
		f.Add(seed[0], seed[1])
	}
	baseline := baselineScript(f)
	f.Fuzz(func(t *testing.T, key, value string) {
		in := baseInput(shapeD2sV3())
		in.Labels = map[string]string{key: value}
		out, s := fuzzScript(t, in, baseline)
		if s == nil {
			return
		}
		labels, err := parseLabels(s.vars["KUBELET_NODE_LABELS"])
		if err != nil {
			t.Fatal(err)
		}
		got, present := labels[key]
		if bootstrap.CanKubeletSetLabel(key) != present || (present && got != value) {
			t.Fatalf("label %q=%q came back as %q (present %v)", key, value, got, present)
		}
		if len(labels) != len(out.KubeletNodeLabels) {
			t.Fatalf("KUBELET_NODE_LABELS has %d labels, output %d", len(labels), len(out.KubeletNodeLabels))
		}
	})
}

func FuzzTaints(f *testing.F) {
	f.Add("sku", "gpu", "NoSchedule")
	f.Add("a;b", "", "NoExecute")
	f.Add("k", "$(id)", "NoSchedule")
	f.Add("karpenter.sh/unregistered", "", "NoExecute")
	f.Add("k", "v", "NoSchedule --anonymous-auth=true")
	baseline := baselineScript(f)
	f.Fuzz(func(t *testing.T, key, value, effect string) {
		in := baseInput(shapeD2sV3())
		in.StartupTaints = nil
		in.Taints = []corev1.Taint{{Key: key, Value: value, Effect: corev1.TaintEffect(effect)}}
		out, s := fuzzScript(t, in, baseline)
		if s == nil {
			return
		}
		flags, err := kubeletconfig.ParseFlags(strings.Fields(s.vars["KUBELET_FLAGS"]))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(flags["register-with-taints"], ",")
		if want := bootstrap.FormatTaint(in.Taints[0]); first != want {
			t.Fatalf("first registered taint = %q, want %q", first, want)
		}
		if flags["register-with-taints"] != bootstrap.FormatTaints(out.Taints) {
			t.Fatalf("--register-with-taints=%s, output taints %v", flags["register-with-taints"], out.Taints)
		}
	})
}

func FuzzKubelet(f *testing.F) {
	f.Add("static", "best-effort", int32(30), int32(20), "42Mi", int32(13), int64(99), "net.core.somaxconn")
	f.Add("none", "none", int32(85), int32(80), "1Gi", int32(5), int64(-1), "kernel.msg*")
	f.Add("static;id", "x y", int32(101), int32(-1), "50Mi --x", int32(1), int64(-5), "net.*,kernel.panic")
	baseline := baselineScript(f)
	f.Fuzz(func(t *testing.T, cpu, topology string, high, low int32, logSize string, logFiles int32, pids int64, sysctl string) {
		in := baseInput(shapeD2sV3())
		in.NodeClass.Spec.Kubelet = &api.KubeletConfiguration{
			CPUManagerPolicy: &cpu, TopologyManagerPolicy: &topology, ImageGCHighThresholdPercent: &high,
			ImageGCLowThresholdPercent: &low, ContainerLogMaxSize: &logSize, ContainerLogMaxFiles: &logFiles,
			PodPidsLimit: &pids, AllowedUnsafeSysctls: strings.Split(sysctl, ","),
		}
		_, s := fuzzScript(t, in, baseline)
		if s == nil {
			return
		}
		flags, err := kubeletconfig.ParseFlags(strings.Fields(s.vars["KUBELET_FLAGS"]))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			"cpu-manager-policy": cpu, "topology-manager-policy": topology,
			"image-gc-high-threshold": strconv.Itoa(int(high)), "image-gc-low-threshold": strconv.Itoa(int(low)),
			"container-log-max-size": logSize, "container-log-max-files": strconv.Itoa(int(logFiles)),
			"pod-max-pids": strconv.FormatInt(pids, 10), "allowed-unsafe-sysctls": sysctl,
		}
		for name, v := range want {
			if flags[name] != v {
				t.Fatalf("--%s=%q, want %q", name, flags[name], v)
			}
		}
	})
}

func FuzzClusterSettings(f *testing.F) {
	f.Add("napkit-dns.hcp.eastus.azmk8s.io", "MC_rg_napkit_eastus", "eastus", "12345678")
	f.Add("$(id)", "rg'; reboot; '", "east us", "1234567x")
	baseline := baselineScript(f)
	f.Fuzz(func(t *testing.T, host, rg, location, clusterID string) {
		in := baseInput(shapeD2sV3())
		in.Cluster.APIServerHost, in.Cluster.NodeResourceGroup, in.Cluster.Location, in.Cluster.ClusterID = host, rg, location, clusterID
		_, s := fuzzScript(t, in, baseline)
		if s == nil {
			return
		}
		nsg := ""
		if clusterID != "" {
			nsg = "aks-agentpool-" + clusterID + "-nsg"
		}
		if s.vars["API_SERVER_NAME"] != host || s.vars["RESOURCE_GROUP"] != rg || s.vars["LOCATION"] != location ||
			s.vars["NETWORK_SECURITY_GROUP"] != nsg {
			t.Fatalf("settings did not parse back: %v", s.vars)
		}
	})
}
