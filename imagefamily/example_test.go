package imagefamily_test

import (
	"fmt"
	"strings"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
)

func ExampleResolveFamily() {
	for _, version := range []string{"1.33.9", "1.34.0"} {
		f, _ := imagefamily.ResolveFamily(imagefamily.FamilyInput{Requested: api.ImageFamilyUbuntu, KubernetesVersion: version})
		fmt.Println(version, f)
	}
	_, err := imagefamily.ResolveFamily(imagefamily.FamilyInput{Requested: api.ImageFamilyWindows2022, Mode: imagefamily.ModeScriptless})
	fmt.Println(err)
	// Output:
	// 1.33.9 Ubuntu2204
	// 1.34.0 Ubuntu2404
	// unsupported combination: spec.imageFamily: Windows nodes need provisioning mode aksmachineapi or aksmachineapiheaderbatch; mode aksscriptless cannot bootstrap them, got "Windows2022"
}

func ExampleSelectDefinition() {
	d, _ := imagefamily.SelectDefinition(imagefamily.Ubuntu2204, imagefamily.VariantStandard, api.ArchAMD64, []string{"V1", "V2"})
	fmt.Println(d.Name, d.Distro)
	d, _ = imagefamily.SelectDefinition(imagefamily.AzureLinux3, imagefamily.VariantStandard, api.ArchARM64, []string{"V2"})
	fmt.Println(d.Name, d.Distro)
	// Output:
	// 2204gen2containerd aks-ubuntu-containerd-22.04-gen2
	// V3gen2arm64 aks-azurelinux-v3-arm64-gen2
}

func ExampleIsNewerImageVersion() {
	fmt.Println(imagefamily.IsNewerImageVersion("202411.12.0", "2022.12.15"))
	fmt.Println(imagefamily.IsNewerImageVersion("202308.28.0", "202411.12.0"))
	// Output:
	// true
	// false
}

func ExampleNodeImageVersion() {
	v, _ := imagefamily.NodeImageVersion("/subscriptions/s/resourceGroups/AKS-Ubuntu/providers/Microsoft.Compute/galleries/AKSUbuntu/images/2204gen2containerd/versions/2022.10.03")
	fmt.Println(v)
	// Output: AKSUbuntu-2204gen2containerd-2022.10.03
}

func ExampleImageLabels() {
	labels := imagefamily.ImageLabels("Ubuntu", imagefamily.Ubuntu2404, false)
	fmt.Println(labels[imagefamily.LabelOSSKU], labels[imagefamily.LabelOSSKURequested], labels[imagefamily.LabelOSSKUEffective])
	// Output: Ubuntu Ubuntu Ubuntu2404
}

func ExampleGenerate() {
	out, err := imagefamily.Generate(baseInput(shapeD2sV3()))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Image.Reference.ID)
	for _, f := range out.KubeletFlags {
		if strings.HasPrefix(f, "--kube-reserved") || strings.HasPrefix(f, "--eviction-hard") || strings.HasPrefix(f, "--max-pods") {
			fmt.Println(f)
		}
	}
	fmt.Println(out.NodeLabels[imagefamily.LabelOSSKUEffective])
	// The payload prints redacted; Payload.Reveal returns the real script.
	for _, line := range strings.Split(out.Payload.String(), "\n") {
		if strings.HasPrefix(line, "TLS_BOOTSTRAP_TOKEN=") {
			fmt.Println(line)
		}
	}
	// Output:
	// /CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/202606.01.0
	// --eviction-hard=memory.available<100Mi
	// --kube-reserved=cpu=100m,memory=2048Mi
	// --max-pods=250
	// Ubuntu2204
	// TLS_BOOTSTRAP_TOKEN='<redacted>'
}

func ExampleGenerate_machineAPI() {
	in := baseInput(shapeD2sV3())
	in.Mode = imagefamily.ModeMachineAPI
	in.NodeClass = nodeClass(api.AKSNodeClassSpec{ImageFamily: ptr(api.ImageFamilyWindows2025)})
	in.Labels, in.StartupTaints = nil, nil
	out, err := imagefamily.Generate(in)
	if err != nil {
		fmt.Println(err)
		return
	}
	k := out.Machine.Properties.Kubernetes
	fmt.Println(out.MachineName, out.Machine.Properties.OperatingSystem.OSSKU, k.NodeImageVersion, k.NodeInitializationTaints)
	// Output: general-purpose-a1b2c Windows2025 AKSWindows-windows-2025-gen2-202606.01.0 [karpenter.sh/unregistered:NoExecute]
}
