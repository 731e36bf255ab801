package bootstrap

import (
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Reference case 18 (CanKubeletSetLabel) plus the kubelet's own label set.
func TestCanKubeletSetLabel(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"example.com/x", true},
		{"kubelet.kubernetes.io/x", true},
		{"my.node.kubernetes.io/x", true},
		{"node.kubernetes.io/instance-type", true},
		{"node-restriction.kubernetes.io/x", false},
		{"scheduler.kubernetes.io/x", false},
		{"example.k8s.io/x", false},
		{"k8s.io/x", false},
		{"kubernetes.io/arch", true},
		{"kubernetes.io/os", true},
		{"kubernetes.io/hostname", true},
		{"topology.kubernetes.io/zone", true},
		{"topology.kubernetes.io/other", false},
		{"failure-domain.beta.kubernetes.io/region", true},
		{"beta.kubernetes.io/arch", true},
		{"kubernetes.azure.com/cluster", true},
		{"karpenter.sh/nodepool", true},
		{"unprefixed", true},
	}
	for _, tt := range tests {
		if got := CanKubeletSetLabel(tt.key); got != tt.want {
			t.Errorf("CanKubeletSetLabel(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func TestKubeletLabelsFiltersAndCopies(t *testing.T) {
	in := map[string]string{"a.io/x": "1", "node-restriction.kubernetes.io/y": "2"}
	got := KubeletLabels(in)
	if want := map[string]string{"a.io/x": "1"}; !maps.Equal(got, want) {
		t.Errorf("KubeletLabels = %v, want %v", got, want)
	}
	if len(in) != 2 {
		t.Errorf("input modified: %v", in)
	}
	if got := KubeletLabels(nil); got == nil || len(got) != 0 {
		t.Errorf("KubeletLabels(nil) = %#v, want empty map", got)
	}
}

func TestFormatLabelsAndTaints(t *testing.T) {
	if got := FormatLabels(map[string]string{"b": "2", "a": "1"}); got != "a=1,b=2" {
		t.Errorf("FormatLabels = %q", got)
	}
	taints := []corev1.Taint{
		{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute},
		{Key: "sku", Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
	}
	if got, want := FormatTaints(taints), "karpenter.sh/unregistered:NoExecute,sku=gpu:NoSchedule"; got != want {
		t.Errorf("FormatTaints = %q, want %q", got, want)
	}
}

func TestValidateLabelsAndTaints(t *testing.T) {
	bad := map[string]string{"ok.io/k": "v", "bad key": "v", "k": "x y", "x/": "v"}
	err := ValidateLabels(bad)
	for _, want := range []string{`"bad key"`, `"x y"`, `"x/"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ValidateLabels error %v does not name %s", err, want)
		}
	}
	taints := []corev1.Taint{
		{Key: "ok", Effect: corev1.TaintEffectNoSchedule},
		{Key: "a;b", Effect: corev1.TaintEffectNoSchedule},
		{Key: "k", Value: "$(x)", Effect: corev1.TaintEffectNoSchedule},
		{Key: "e", Effect: "Sometimes"},
	}
	err = ValidateTaints(taints)
	for _, want := range []string{`"a;b"`, `"$(x)"`, `"Sometimes"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ValidateTaints error %v does not name %s", err, want)
		}
	}
	if err := ValidateTaints(taints[:1]); err != nil {
		t.Errorf("ValidateTaints(valid) = %v", err)
	}
}

func TestValidateFlags(t *testing.T) {
	good := []string{"--max-pods=250", "--eviction-hard=memory.available<100Mi", "--allowed-unsafe-sysctls=net.*,kernel.msg*",
		"--register-with-taints=a/b=c:NoSchedule", "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "--v"}
	if err := ValidateFlags(good); err != nil {
		t.Errorf("ValidateFlags(good) = %v", err)
	}
	for _, f := range []string{"--x=a b", "--x=$(id)", "-x=1", "--x='1'", "--x=a;b", "--x=\n"} {
		if err := ValidateFlags([]string{f}); err == nil {
			t.Errorf("ValidateFlags(%q) = nil, want error", f)
		}
	}
}
