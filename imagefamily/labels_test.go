package imagefamily_test

import (
	"maps"
	"testing"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
)

func TestImageLabels(t *testing.T) {
	tests := []struct {
		requested string
		f         imagefamily.Family
		fips      bool
		want      map[string]string
	}{
		{"Ubuntu", imagefamily.Ubuntu2204, false, map[string]string{"kubernetes.azure.com/os-sku": "Ubuntu",
			"kubernetes.azure.com/os-sku-requested": "Ubuntu", "kubernetes.azure.com/os-sku-effective": "Ubuntu2204"}},
		{"", imagefamily.Ubuntu2404, false, map[string]string{"kubernetes.azure.com/os-sku": "Ubuntu",
			"kubernetes.azure.com/os-sku-requested": "Ubuntu", "kubernetes.azure.com/os-sku-effective": "Ubuntu2404"}},
		{"Ubuntu", imagefamily.Ubuntu2004, true, map[string]string{"kubernetes.azure.com/os-sku": "Ubuntu",
			"kubernetes.azure.com/os-sku-requested": "Ubuntu", "kubernetes.azure.com/os-sku-effective": "Ubuntu",
			"kubernetes.azure.com/fips_enabled": "true"}},
		{"AzureLinux", imagefamily.AzureLinux3, true, map[string]string{"kubernetes.azure.com/os-sku": "AzureLinux",
			"kubernetes.azure.com/os-sku-requested": "AzureLinux", "kubernetes.azure.com/os-sku-effective": "AzureLinux3",
			"kubernetes.azure.com/fips_enabled": "true"}},
		{"Windows2025", imagefamily.Windows2025, false, map[string]string{"kubernetes.azure.com/os-sku": "Windows2025",
			"kubernetes.azure.com/os-sku-requested": "Windows2025", "kubernetes.azure.com/os-sku-effective": "Windows2025"}},
	}
	for _, tt := range tests {
		if got := imagefamily.ImageLabels(tt.requested, tt.f, tt.fips); !maps.Equal(got, tt.want) {
			t.Errorf("ImageLabels(%q, %s, %v) = %v, want %v", tt.requested, tt.f, tt.fips, got, tt.want)
		}
	}
}

// Reference case 18, through Generate: the labels a node gets from its node class and version.
func TestGenerateLabelsCase18(t *testing.T) {
	tests := []struct {
		name     string
		version  string
		localDNS *api.LocalDNS
		shape    imagefamily.NodeShape
		want     map[string]string
	}{
		{"1.33.9", "1.33.9", nil, shapeD2sV3(), map[string]string{"kubernetes.azure.com/os-sku": "Ubuntu",
			"kubernetes.azure.com/os-sku-requested": "Ubuntu", "kubernetes.azure.com/os-sku-effective": "Ubuntu2204",
			"kubernetes.azure.com/localdns-state": "disabled", "karpenter.sh/do-not-sync-taints": "true"}},
		{"1.34.0", "1.34.0", nil, shapeD2sV3(), map[string]string{
			"kubernetes.azure.com/os-sku-effective": "Ubuntu2404", "kubernetes.azure.com/localdns-state": "disabled"}},
		{"preferred small", "1.34.0", &api.LocalDNS{Mode: api.LocalDNSModePreferred}, shapeD2sV3(), map[string]string{
			"kubernetes.azure.com/localdns-state": "disabled", "kubernetes.azure.com/network-stateless-cni": "true"}},
		// Preferred is resolved per node class (status.localDNSState), not per size: unresolved is disabled.
		{"preferred large", "1.34.0", &api.LocalDNS{Mode: api.LocalDNSModePreferred}, shapeD16plds(), map[string]string{
			"kubernetes.azure.com/localdns-state": "disabled"}},
		{"disabled", "1.34.0", &api.LocalDNS{Mode: api.LocalDNSModeDisabled}, shapeD16plds(), map[string]string{
			"kubernetes.azure.com/localdns-state": "disabled"}},
	}
	for _, tt := range tests {
		in := baseInput(tt.shape)
		in.Cluster = testCluster(tt.version)
		in.NodeClass.Spec.LocalDNS = tt.localDNS
		out, err := imagefamily.Generate(in)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for k, v := range tt.want {
			if out.NodeLabels[k] != v {
				t.Errorf("%s: label %s = %q, want %q", tt.name, k, out.NodeLabels[k], v)
			}
		}
		if _, ok := out.NodeLabels[api.LabelAKSFIPSEnabled]; ok {
			t.Errorf("%s: fips_enabled set without FIPS", tt.name)
		}
	}
}

func TestClusterLabelValue(t *testing.T) {
	long := "MC_abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmn"
	tests := []struct{ in, want string }{
		{"MC_rg_cluster_eastus", "MC_rg_cluster_eastus"},
		{"MC_rg(prod)", "MC_rg-prod-z"},
		{"rg.", "rg.z"},
		{long, long[:63]},
		{long[:62] + "-x", long[:62] + "z"},
	}
	for _, tt := range tests {
		if got := imagefamily.ClusterLabelValue(tt.in); got != tt.want {
			t.Errorf("ClusterLabelValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
