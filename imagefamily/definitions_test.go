package imagefamily_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/napkit/napkit/imagefamily"
)

func names(defs []imagefamily.Definition) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Name
	}
	return out
}

// Reference table 5.2, in priority order.
func TestDefinitionsOrder(t *testing.T) {
	const (
		std, tl, fips, fipsTL = imagefamily.VariantStandard, imagefamily.VariantTrustedLaunch, imagefamily.VariantFIPS, imagefamily.VariantFIPSTrustedLaunch
	)
	tests := []struct {
		f    imagefamily.Family
		v    imagefamily.Variant
		want []string
	}{
		{imagefamily.Ubuntu2204, std, []string{"2204gen2containerd", "2204containerd", "2204gen2arm64containerd"}},
		{imagefamily.Ubuntu2204, tl, []string{"2204gen2TLcontainerd"}},
		{imagefamily.Ubuntu2204, fipsTL, []string{"2204gen2fipsTLcontainerd"}},
		{imagefamily.Ubuntu2204, fips, nil},
		{imagefamily.Ubuntu2404, std, []string{"2404gen2containerd", "2404containerd", "2404gen2arm64containerd"}},
		{imagefamily.Ubuntu2404, tl, []string{"2404gen2TLcontainerd"}},
		{imagefamily.Ubuntu2404, fips, nil},
		{imagefamily.Ubuntu2004, fips, []string{"2004gen2fipscontainerd", "2004fipscontainerd"}},
		{imagefamily.Ubuntu2004, std, nil},
		{imagefamily.AzureLinux2, std, []string{"V2gen2", "V2", "V2gen2arm64"}},
		{imagefamily.AzureLinux2, tl, []string{"V2gen2TL"}},
		{imagefamily.AzureLinux2, fips, []string{"V2gen2fips", "V2fips"}},
		{imagefamily.AzureLinux3, std, []string{"V3gen2", "V3", "V3gen2arm64"}},
		{imagefamily.AzureLinux3, tl, []string{"V3gen2TL"}},
		{imagefamily.AzureLinux3, fips, []string{"V3gen2fips", "V3fips", "V3gen2arm64fips"}},
		{imagefamily.Windows2022, std, []string{"windows-2022-containerd-gen2", "windows-2022-containerd"}},
		{imagefamily.Windows2025, std, []string{"windows-2025-gen2", "windows-2025"}},
		{imagefamily.Windows2025, tl, []string{"windows-2025-gen2-tl"}},
		{"Nope", std, nil},
	}
	for _, tt := range tests {
		if got := names(imagefamily.Definitions(tt.f, tt.v)); !slices.Equal(got, tt.want) {
			t.Errorf("Definitions(%s, %s) = %v, want %v", tt.f, tt.v, got, tt.want)
		}
	}
}

func TestDefinitionsAreFreshCopies(t *testing.T) {
	a := imagefamily.Definitions(imagefamily.Ubuntu2204, imagefamily.VariantStandard)
	a[0].Name = "mutated"
	if b := imagefamily.Definitions(imagefamily.Ubuntu2204, imagefamily.VariantStandard); b[0].Name != "2204gen2containerd" {
		t.Errorf("Definitions shares its table: %v", b[0].Name)
	}
}

func TestDistroNames(t *testing.T) {
	want := map[string]string{
		"2204gen2containerd": "aks-ubuntu-containerd-22.04-gen2", "2204containerd": "aks-ubuntu-containerd-22.04",
		"2204gen2arm64containerd": "aks-ubuntu-arm64-containerd-22.04-gen2", "2404gen2containerd": "aks-ubuntu-containerd-24.04-gen2",
		"2004gen2fipscontainerd": "aks-ubuntu-fips-containerd-20.04-gen2", "V2gen2": "aks-azurelinux-v2-gen2",
		"V3gen2arm64": "aks-azurelinux-v3-arm64-gen2", "V3gen2TL": "aks-azurelinux-v3-gen2-tl",
	}
	for _, f := range []imagefamily.Family{imagefamily.Ubuntu2004, imagefamily.Ubuntu2204, imagefamily.Ubuntu2404, imagefamily.AzureLinux2, imagefamily.AzureLinux3} {
		for _, v := range []imagefamily.Variant{imagefamily.VariantStandard, imagefamily.VariantTrustedLaunch, imagefamily.VariantFIPS} {
			for _, d := range imagefamily.Definitions(f, v) {
				if w, ok := want[d.Name]; ok && d.Distro != w {
					t.Errorf("%s distro = %s, want %s", d.Name, d.Distro, w)
				}
			}
		}
	}
}

func TestSelectDefinition(t *testing.T) {
	tests := []struct {
		name string
		f    imagefamily.Family
		v    imagefamily.Variant
		arch string
		gens []string
		want string
	}{
		{"gen1+gen2 picks gen2", imagefamily.Ubuntu2204, imagefamily.VariantStandard, "amd64", []string{"1", "2"}, "2204gen2containerd"},
		{"ARM spelling", imagefamily.Ubuntu2204, imagefamily.VariantStandard, "amd64", []string{"V2", "V1"}, "2204gen2containerd"},
		{"gen1 only", imagefamily.Ubuntu2404, imagefamily.VariantStandard, "amd64", []string{"1"}, "2404containerd"},
		{"arm64", imagefamily.AzureLinux3, imagefamily.VariantStandard, "arm64", []string{"2"}, "V3gen2arm64"},
		{"AzureLinux3 arm64 FIPS", imagefamily.AzureLinux3, imagefamily.VariantFIPS, "arm64", []string{"2"}, "V3gen2arm64fips"},
		{"FIPS gen1", imagefamily.Ubuntu2004, imagefamily.VariantFIPS, "amd64", []string{"1"}, "2004fipscontainerd"},
		{"TL", imagefamily.Ubuntu2204, imagefamily.VariantTrustedLaunch, "amd64", []string{"1", "2"}, "2204gen2TLcontainerd"},
		{"Windows gen1", imagefamily.Windows2022, imagefamily.VariantStandard, "amd64", []string{"1"}, "windows-2022-containerd"},
	}
	for _, tt := range tests {
		got, err := imagefamily.SelectDefinition(tt.f, tt.v, tt.arch, tt.gens)
		if err != nil || got.Name != tt.want {
			t.Errorf("%s: SelectDefinition = %v, %v; want %s", tt.name, got.Name, err, tt.want)
		}
	}
	for _, bad := range []struct {
		f    imagefamily.Family
		v    imagefamily.Variant
		arch string
		gens []string
	}{
		{imagefamily.Ubuntu2204, imagefamily.VariantTrustedLaunch, "amd64", []string{"1"}},
		{imagefamily.AzureLinux2, imagefamily.VariantFIPS, "arm64", []string{"2"}},
		{imagefamily.Windows2022, imagefamily.VariantStandard, "arm64", []string{"2"}},
		{imagefamily.Ubuntu2404, imagefamily.VariantFIPS, "amd64", []string{"2"}},
		{imagefamily.Ubuntu2204, imagefamily.VariantStandard, "amd64", nil},
	} {
		if _, err := imagefamily.SelectDefinition(bad.f, bad.v, bad.arch, bad.gens); !errors.Is(err, imagefamily.ErrNoImage) {
			t.Errorf("SelectDefinition(%s, %s, %s, %v) error = %v, want ErrNoImage", bad.f, bad.v, bad.arch, bad.gens, err)
		}
	}
}

func TestVariantOf(t *testing.T) {
	if imagefamily.VariantOf(false, false) != imagefamily.VariantStandard || imagefamily.VariantOf(false, true) != imagefamily.VariantTrustedLaunch ||
		imagefamily.VariantOf(true, false) != imagefamily.VariantFIPS || imagefamily.VariantOf(true, true) != imagefamily.VariantFIPSTrustedLaunch {
		t.Error("VariantOf mapping wrong")
	}
}
