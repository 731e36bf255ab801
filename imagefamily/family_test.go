package imagefamily_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
)

// Reference section 5.1 and the seed's Windows rules.
func TestResolveFamily(t *testing.T) {
	const s, m, b = imagefamily.ModeScriptless, imagefamily.ModeMachineAPI, imagefamily.ModeBootstrappingClient
	tests := []struct {
		name      string
		in        imagefamily.FamilyInput
		want      imagefamily.Family
		wantErr   error
		errSubstr string
	}{
		{name: "Ubuntu2204", in: imagefamily.FamilyInput{Requested: "Ubuntu2204", KubernetesVersion: "1.34.0"}, want: imagefamily.Ubuntu2204},
		{name: "Ubuntu2404", in: imagefamily.FamilyInput{Requested: "Ubuntu2404", KubernetesVersion: "1.30.0"}, want: imagefamily.Ubuntu2404},
		{name: "Ubuntu before 1.34", in: imagefamily.FamilyInput{Requested: "Ubuntu", KubernetesVersion: "1.33.9"}, want: imagefamily.Ubuntu2204},
		{name: "Ubuntu from 1.34", in: imagefamily.FamilyInput{Requested: "Ubuntu", KubernetesVersion: "1.34.0"}, want: imagefamily.Ubuntu2404},
		{name: "unset means Ubuntu", in: imagefamily.FamilyInput{KubernetesVersion: "v1.35.1"}, want: imagefamily.Ubuntu2404},
		{name: "Ubuntu bad version", in: imagefamily.FamilyInput{Requested: "Ubuntu", KubernetesVersion: "latest"}, want: imagefamily.Ubuntu2204},
		{name: "Ubuntu FIPS", in: imagefamily.FamilyInput{Requested: "Ubuntu", FIPS: true, KubernetesVersion: "1.34.0"}, want: imagefamily.Ubuntu2004},
		{name: "Ubuntu FIPS+TL", in: imagefamily.FamilyInput{Requested: "Ubuntu", FIPS: true, TrustedLaunch: true, KubernetesVersion: "1.34.0"}, want: imagefamily.Ubuntu2204},
		{name: "Ubuntu TL", in: imagefamily.FamilyInput{Requested: "Ubuntu", TrustedLaunch: true, KubernetesVersion: "1.34.0"}, want: imagefamily.Ubuntu2204},
		{name: "Ubuntu2204 FIPS+TL", in: imagefamily.FamilyInput{Requested: "Ubuntu2204", FIPS: true, TrustedLaunch: true}, want: imagefamily.Ubuntu2204},
		{name: "Ubuntu2204 FIPS no TL", in: imagefamily.FamilyInput{Requested: "Ubuntu2204", FIPS: true}, wantErr: imagefamily.ErrUnsupported, errSubstr: "trusted launch"},
		{name: "Ubuntu2404 FIPS", in: imagefamily.FamilyInput{Requested: "Ubuntu2404", FIPS: true}, wantErr: imagefamily.ErrUnsupported, errSubstr: "no FIPS images"},
		{name: "AzureLinux 1.31", in: imagefamily.FamilyInput{Requested: "AzureLinux", KubernetesVersion: "1.31.9"}, want: imagefamily.AzureLinux2},
		{name: "AzureLinux 1.32", in: imagefamily.FamilyInput{Requested: "AzureLinux", KubernetesVersion: "1.32.0"}, want: imagefamily.AzureLinux3},
		{name: "AzureLinux bad version", in: imagefamily.FamilyInput{Requested: "AzureLinux", KubernetesVersion: "x"}, want: imagefamily.AzureLinux2},
		{name: "AzureLinux FIPS", in: imagefamily.FamilyInput{Requested: "AzureLinux", FIPS: true, KubernetesVersion: "1.33.0"}, want: imagefamily.AzureLinux3},
		{name: "AzureLinux FIPS+TL", in: imagefamily.FamilyInput{Requested: "AzureLinux", FIPS: true, TrustedLaunch: true}, wantErr: imagefamily.ErrUnsupported},
		{name: "Windows2022 machine API", in: imagefamily.FamilyInput{Requested: "Windows2022", Mode: m, KubernetesVersion: "1.30.0"}, want: imagefamily.Windows2022},
		{name: "Windows2022 header batch", in: imagefamily.FamilyInput{Requested: "Windows2022", Mode: imagefamily.ModeMachineAPIHeaderBatch}, want: imagefamily.Windows2022},
		{name: "Windows2025 1.32", in: imagefamily.FamilyInput{Requested: "Windows2025", Mode: m, KubernetesVersion: "1.32.0"}, want: imagefamily.Windows2025},
		{name: "Windows2025 TL", in: imagefamily.FamilyInput{Requested: "Windows2025", Mode: m, TrustedLaunch: true, KubernetesVersion: "1.33.0"}, want: imagefamily.Windows2025},
		{name: "Windows2025 1.31", in: imagefamily.FamilyInput{Requested: "Windows2025", Mode: m, KubernetesVersion: "1.31.9"}, wantErr: imagefamily.ErrUnsupported, errSubstr: "1.32 or newer"},
		{name: "Windows2025 no version", in: imagefamily.FamilyInput{Requested: "Windows2025", Mode: m}, wantErr: imagefamily.ErrInvalid},
		{name: "Windows scriptless", in: imagefamily.FamilyInput{Requested: "Windows2022", Mode: s}, wantErr: imagefamily.ErrUnsupported, errSubstr: "aksmachineapi"},
		{name: "Windows default mode", in: imagefamily.FamilyInput{Requested: "Windows2025", KubernetesVersion: "1.33.0"}, wantErr: imagefamily.ErrUnsupported, errSubstr: "aksscriptless"},
		{name: "Windows bootstrapping client", in: imagefamily.FamilyInput{Requested: "Windows2025", Mode: b, KubernetesVersion: "1.33.0"}, wantErr: imagefamily.ErrUnsupported, errSubstr: "bootstrappingclient"},
		{name: "Windows FIPS", in: imagefamily.FamilyInput{Requested: "Windows2022", Mode: m, FIPS: true}, wantErr: imagefamily.ErrUnsupported},
		{name: "Windows2022 TL", in: imagefamily.FamilyInput{Requested: "Windows2022", Mode: m, TrustedLaunch: true}, wantErr: imagefamily.ErrUnsupported},
		{name: "unknown family", in: imagefamily.FamilyInput{Requested: "Ubuntu1804"}, wantErr: imagefamily.ErrInvalid, errSubstr: "Ubuntu1804"},
		{name: "unknown mode", in: imagefamily.FamilyInput{Requested: "Ubuntu", Mode: "vmss"}, wantErr: imagefamily.ErrInvalid, errSubstr: "vmss"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := imagefamily.ResolveFamily(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errSubstr) {
					t.Fatalf("error = %v, want %v containing %q", err, tt.wantErr, tt.errSubstr)
				}
				var fe *api.FieldError
				if !errors.As(err, &fe) || fe.Field == "" {
					t.Errorf("error %v is not an *api.FieldError naming a field", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ResolveFamily = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestFamilyInputFor(t *testing.T) {
	nc := nodeClass(api.AKSNodeClassSpec{
		ImageFamily: ptr("AzureLinux"), FIPSMode: ptr(api.FIPSModeFIPS),
		Security: &api.Security{VTPM: ptr(true), SecureBoot: ptr(false)},
	})
	got := imagefamily.FamilyInputFor(nc, "1.33.0", imagefamily.ModeMachineAPI)
	want := imagefamily.FamilyInput{Requested: "AzureLinux", FIPS: true, TrustedLaunch: true, KubernetesVersion: "1.33.0", Mode: imagefamily.ModeMachineAPI}
	if got != want {
		t.Errorf("FamilyInputFor = %+v, want %+v", got, want)
	}
	if got := imagefamily.FamilyInputFor(nil, "1.33.0", ""); got != (imagefamily.FamilyInput{KubernetesVersion: "1.33.0"}) {
		t.Errorf("FamilyInputFor(nil) = %+v", got)
	}
	disabled := nodeClass(api.AKSNodeClassSpec{FIPSMode: ptr(api.FIPSModeDisabled)})
	if imagefamily.FamilyInputFor(disabled, "", "").FIPS {
		t.Error("fipsMode Disabled read as FIPS")
	}
}

func TestFamilyOS(t *testing.T) {
	tests := []struct {
		f         imagefamily.Family
		os, osSKU string
		isWindows bool
	}{
		{imagefamily.Ubuntu2004, "linux", "Ubuntu", false},
		{imagefamily.Ubuntu2404, "linux", "Ubuntu", false},
		{imagefamily.AzureLinux2, "linux", "AzureLinux", false},
		{imagefamily.AzureLinux3, "linux", "AzureLinux", false},
		{imagefamily.Windows2022, "windows", "Windows2022", true},
		{imagefamily.Windows2025, "windows", "Windows2025", true},
	}
	for _, tt := range tests {
		if tt.f.OS() != tt.os || tt.f.OSSKU() != tt.osSKU || tt.f.IsWindows() != tt.isWindows {
			t.Errorf("%s: OS %s, OSSKU %s, IsWindows %v", tt.f, tt.f.OS(), tt.f.OSSKU(), tt.f.IsWindows())
		}
	}
}

func TestModeResolve(t *testing.T) {
	if m, err := imagefamily.Mode("").Resolve(); err != nil || m != imagefamily.ModeScriptless {
		t.Errorf(`Mode("").Resolve() = %v, %v`, m, err)
	}
	for _, m := range imagefamily.Modes() {
		if got, err := m.Resolve(); err != nil || got != m {
			t.Errorf("%s.Resolve() = %v, %v", m, got, err)
		}
	}
	if _, err := imagefamily.Mode("AKSScriptless").Resolve(); !errors.Is(err, imagefamily.ErrInvalid) {
		t.Errorf("modes are case-sensitive; got %v", err)
	}
}
