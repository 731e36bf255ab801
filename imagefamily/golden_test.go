package imagefamily_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	corev1 "k8s.io/api/core/v1"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenCase is one node to render.
type goldenCase struct {
	name string
	in   func() imagefamily.Input
}

func withMode(in imagefamily.Input, m imagefamily.Mode) imagefamily.Input {
	in.Mode = m
	return in
}

func fipsInput(shape imagefamily.NodeShape) imagefamily.Input {
	in := baseInput(shape)
	in.NodeClass = nodeClass(api.AKSNodeClassSpec{
		ImageFamily: ptr(api.ImageFamilyUbuntu2204), FIPSMode: ptr(api.FIPSModeFIPS),
		Security: &api.Security{SecureBoot: ptr(true), VTPM: ptr(true)},
	})
	in.Images.Gallery = imagefamily.SharedImageGallery
	return in
}

func azureLinuxInput(shape imagefamily.NodeShape) imagefamily.Input {
	in := baseInput(shape)
	in.NodeClass = nodeClass(api.AKSNodeClassSpec{ImageFamily: ptr(api.ImageFamilyAzureLinux)})
	return in
}

func windowsInput(family string, version string) imagefamily.Input {
	in := withMode(baseInput(shapeD2sV3()), imagefamily.ModeMachineAPI)
	in.NodeClass = nodeClass(api.AKSNodeClassSpec{ImageFamily: ptr(family), OSDiskSizeGB: ptr(int32(256))})
	in.Cluster = testCluster(version)
	in.Labels = nil
	in.StartupTaints = nil
	in.Taints = []corev1.Taint{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
	return in
}

func spot(in imagefamily.Input) imagefamily.Input {
	in.CapacityType = api.CapacityTypeSpot
	in.Zone = ""
	return in
}

func kubeletTuned(in imagefamily.Input) imagefamily.Input {
	in.NodeClass.Spec.Kubelet = &api.KubeletConfiguration{
		CPUManagerPolicy: ptr("static"), ImageGCHighThresholdPercent: ptr(int32(30)), ImageGCLowThresholdPercent: ptr(int32(20)),
		ContainerLogMaxSize: ptr("1Gi"), PodPidsLimit: ptr(int64(4096)), AllowedUnsafeSysctls: []string{"net.core.somaxconn"},
	}
	return in
}

func goldenCases() []goldenCase {
	b := imagefamily.ModeBootstrappingClient
	m := imagefamily.ModeMachineAPI
	return []goldenCase{
		{"aksscriptless-amd64-gen2", func() imagefamily.Input { return kubeletTuned(baseInput(shapeD2sV3())) }},
		{"aksscriptless-amd64-gen1", func() imagefamily.Input {
			in := baseInput(shapeD2V2())
			in.Cluster = testCluster("1.34.0")
			return in
		}},
		{"aksscriptless-arm64", func() imagefamily.Input { return azureLinuxInput(shapeD16plds()) }},
		{"aksscriptless-gpu", func() imagefamily.Input { return baseInput(shapeNC24ads()) }},
		{"aksscriptless-fips", func() imagefamily.Input { return fipsInput(shapeD2sV3()) }},
		{"bootstrappingclient-amd64-gen2", func() imagefamily.Input { return kubeletTuned(withMode(baseInput(shapeD2sV3()), b)) }},
		{"bootstrappingclient-arm64", func() imagefamily.Input { return withMode(azureLinuxInput(shapeD16plds()), b) }},
		{"bootstrappingclient-gpu", func() imagefamily.Input { return withMode(baseInput(shapeNC24ads()), b) }},
		{"bootstrappingclient-fips", func() imagefamily.Input { return withMode(fipsInput(shapeD2sV3()), b) }},
		{"aksmachineapi-amd64-gen2", func() imagefamily.Input { return kubeletTuned(withMode(baseInput(shapeD2sV3()), m)) }},
		{"aksmachineapi-amd64-gen1", func() imagefamily.Input { return withMode(baseInput(shapeD2V2()), m) }},
		{"aksmachineapi-arm64", func() imagefamily.Input { return withMode(azureLinuxInput(shapeD16plds()), m) }},
		{"aksmachineapi-gpu-spot", func() imagefamily.Input { return spot(withMode(baseInput(shapeNC24ads()), m)) }},
		{"aksmachineapi-fips", func() imagefamily.Input { return withMode(fipsInput(shapeD2sV3()), m) }},
		{"aksmachineapi-windows2022", func() imagefamily.Input { return windowsInput(api.ImageFamilyWindows2022, "1.33.2") }},
		{"aksmachineapi-windows2025-gen1", func() imagefamily.Input {
			in := windowsInput(api.ImageFamilyWindows2025, "1.34.1")
			in.Shape = shapeD2V2()
			return in
		}},
		{"aksmachineapiheaderbatch-amd64-gen2", func() imagefamily.Input {
			return withMode(baseInput(shapeD2sV3()), imagefamily.ModeMachineAPIHeaderBatch)
		}},
	}
}

// goldenText renders an output for review: the image and machine name, then the redacted payload
// (JSON bodies indented).
func goldenText(t *testing.T, out *imagefamily.Output) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("# mode: " + string(out.Mode) + "\n# image: " + out.Image.Reference.ID + "\n")
	b.WriteString("# definition: " + out.Image.Definition.Name + " (distro " + out.Image.Definition.Distro + ")\n")
	if out.MachineName != "" {
		b.WriteString("# machine: " + out.MachineName + "\n")
	}
	payload := out.Payload.RedactedBytes()
	if out.Payload.ContentType() == bootstrap.ContentTypeJSON {
		var indented bytes.Buffer
		if err := json.Indent(&indented, payload, "", "  "); err != nil {
			t.Fatal(err)
		}
		payload = append(indented.Bytes(), '\n')
	}
	b.Write(payload)
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			out, err := imagefamily.Generate(tc.in())
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.name, goldenText(t, out))
		})
	}
}

// TestGoldenHeaderBatch renders three machines of one template and one of another into batches.
func TestGoldenHeaderBatch(t *testing.T) {
	var reqs []bootstrap.MachineRequest
	for i, zone := range []string{"eastus-1", "eastus-2", "eastus-3", ""} {
		in := withMode(baseInput(shapeD2sV3()), imagefamily.ModeMachineAPIHeaderBatch)
		in.Zone = zone
		in.NodeClaim = "general-purpose-" + string(rune('a'+i)) + "1b2c"
		if zone == "" {
			in.Shape = shapeD16plds()
		}
		out, err := imagefamily.Generate(in)
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, bootstrap.MachineRequest{Name: out.MachineName, Machine: out.Machine})
	}
	batches, err := bootstrap.GroupBatches(reqs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, batch := range batches {
		header, err := batch.Header()
		if err != nil {
			t.Fatal(err)
		}
		body, err := json.MarshalIndent(batch.Template, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("# " + bootstrap.BatchHeaderName + ": " + header + "\n")
		b.Write(append(body, '\n'))
	}
	checkGolden(t, "aksmachineapiheaderbatch-batches", b.Bytes())
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run go test ./imagefamily -run Golden -update and review the diff\n--- got ---\n%s", path, got)
	}
}
