package imagefamily_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/napkit/napkit/imagefamily"
)

// Reference case 11.
func TestNodeImageVersion(t *testing.T) {
	tests := []struct {
		id, want string
	}{
		{"/subscriptions/10945678-1234-1234-1234-123456789012/resourceGroups/AKS-Ubuntu/providers/Microsoft.Compute/galleries/AKSUbuntu/images/2204gen2containerd/versions/2022.10.03",
			"AKSUbuntu-2204gen2containerd-2022.10.03"},
		{"/SUBSCRIPTIONS/x/resourcegroups/aks-ubuntu/PROVIDERS/microsoft.compute/Galleries/AKSUbuntu/Images/2204gen2containerd/Versions/2022.10.03-build.1",
			"AKSUbuntu-2204gen2containerd-2022.10.03-build.1"},
		{"/subscriptions/s/resourceGroups/AKS-AzureLinux/providers/Microsoft.Compute/galleries/AKSAzureLinux/images/V3gen2/versions/202411.12.0",
			"AKSAzureLinux-V3gen2-202411.12.0"},
	}
	for _, tt := range tests {
		if got, err := imagefamily.NodeImageVersion(tt.id); err != nil || got != tt.want {
			t.Errorf("NodeImageVersion(%q) = %q, %v; want %q", tt.id, got, err, tt.want)
		}
	}
	for _, bad := range []string{
		"/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/2022.10.03",
		"/subscriptions/invalid/format",
		"",
	} {
		_, err := imagefamily.NodeImageVersion(bad)
		if !errors.Is(err, imagefamily.ErrInvalid) || !strings.Contains(err.Error(), "incorrect SIG image ID") {
			t.Errorf("NodeImageVersion(%q) error = %v", bad, err)
		}
	}
}

func TestImageIDs(t *testing.T) {
	if got, want := imagefamily.CommunityImageID("G", "D", "1.2"), "/CommunityGalleries/G/images/D/versions/1.2"; got != want {
		t.Errorf("CommunityImageID = %s", got)
	}
	got := imagefamily.SharedImageID("S", "RG", "G", "D", "1.2")
	if want := "/subscriptions/S/resourceGroups/RG/providers/Microsoft.Compute/galleries/G/images/D/versions/1.2"; got != want {
		t.Errorf("SharedImageID = %s", got)
	}
	if v, err := imagefamily.NodeImageVersion(got); err != nil || v != "G-D-1.2" {
		t.Errorf("round trip = %s, %v", v, err)
	}
}

func TestResolveImage(t *testing.T) {
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	avail := []imagefamily.AvailableVersion{
		{Definition: "2204gen2containerd", Version: "202411.12.0", PublishedAt: day.Add(time.Hour)},
		{Definition: "2204gen2containerd", Version: "202412.01.0", PublishedAt: day},
		{Definition: "2204containerd", Version: "202501.01.0", PublishedAt: day.Add(2 * time.Hour)},
	}
	base := imagefamily.ImageInput{Family: imagefamily.Ubuntu2204, Variant: imagefamily.VariantStandard,
		Arch: "amd64", HyperVGenerations: []string{"1", "2"}, Available: avail, SIGSubscriptionID: "sub"}

	cig, err := imagefamily.ResolveImage(base)
	if err != nil {
		t.Fatal(err)
	}
	// Community gallery: the most recently published version of the chosen definition.
	if want := "/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/202411.12.0"; cig.Reference.ID != want {
		t.Errorf("CIG ID = %s, want %s", cig.Reference.ID, want)
	}
	if _, err := cig.Reference.NodeImageVersion(); !errors.Is(err, imagefamily.ErrInvalid) {
		t.Errorf("CIG reference has a node image version: %v", err)
	}

	sigIn := base
	sigIn.Gallery = imagefamily.SharedImageGallery
	sig, err := imagefamily.ResolveImage(sigIn)
	if err != nil {
		t.Fatal(err)
	}
	// Shared gallery: the highest version number.
	if want := "/subscriptions/sub/resourceGroups/AKS-Ubuntu/providers/Microsoft.Compute/galleries/AKSUbuntu/images/2204gen2containerd/versions/202412.01.0"; sig.Reference.ID != want {
		t.Errorf("SIG ID = %s, want %s", sig.Reference.ID, want)
	}
	if v, _ := sig.Reference.NodeImageVersion(); v != "AKSUbuntu-2204gen2containerd-202412.01.0" {
		t.Errorf("node image version = %s", v)
	}

	pinned := sigIn
	pinned.Version = "202301.01.0"
	if img, err := imagefamily.ResolveImage(pinned); err != nil || img.Reference.Version != "202301.01.0" {
		t.Errorf("pinned = %v, %v", img.Reference.Version, err)
	}
}

func TestResolveImageErrors(t *testing.T) {
	ok := imagefamily.ImageInput{Family: imagefamily.Ubuntu2204, Variant: imagefamily.VariantStandard, Arch: "amd64",
		HyperVGenerations: []string{"2"}, Version: "202411.12.0", SIGSubscriptionID: "sub"}
	tests := []struct {
		name   string
		mutate func(*imagefamily.ImageInput)
		want   error
	}{
		{"FIPS from community gallery", func(in *imagefamily.ImageInput) { in.Variant = imagefamily.VariantFIPSTrustedLaunch }, imagefamily.ErrUnsupported},
		{"Windows from community gallery", func(in *imagefamily.ImageInput) { in.Family = imagefamily.Windows2022 }, imagefamily.ErrUnsupported},
		{"SIG without subscription", func(in *imagefamily.ImageInput) {
			in.Gallery, in.SIGSubscriptionID = imagefamily.SharedImageGallery, ""
		}, imagefamily.ErrInvalid},
		{"unknown gallery", func(in *imagefamily.ImageInput) { in.Gallery = "Marketplace" }, imagefamily.ErrInvalid},
		{"no version", func(in *imagefamily.ImageInput) { in.Version = "" }, imagefamily.ErrNoImageVersion},
		{"bad pinned version", func(in *imagefamily.ImageInput) { in.Version = "../latest" }, imagefamily.ErrInvalid},
		{"no image for arch", func(in *imagefamily.ImageInput) { in.Arch = "s390x" }, imagefamily.ErrNoImage},
	}
	for _, tt := range tests {
		in := ok
		tt.mutate(&in)
		if _, err := imagefamily.ResolveImage(in); !errors.Is(err, tt.want) {
			t.Errorf("%s: error = %v, want %v", tt.name, err, tt.want)
		}
	}
}
