package imagefamily_test

import (
	"time"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testToken is the bootstrap token of every fixture; secret scans look for it.
const testToken = "abcdef.0123456789abcdef"

// testCA is a syntactically valid PEM block; the DER inside is never parsed.
const testCA = "-----BEGIN CERTIFICATE-----\nTUlJQm5hcGtpdCB0ZXN0IENB\n-----END CERTIFICATE-----\n"

const (
	testSubscription = "00000000-0000-0000-0000-000000000001"
	testSubnetID     = "/subscriptions/" + testSubscription +
		"/resourceGroups/MC_rg_napkit_eastus/providers/Microsoft.Network/virtualNetworks/aks-vnet-12345678/subnets/aks-subnet"
)

// testCluster is an overlay + Cilium cluster on Kubernetes version.
func testCluster(version string) bootstrap.Cluster {
	return bootstrap.Cluster{
		ClusterName:             "napkit",
		KubernetesVersion:       version,
		APIServerHost:           "napkit-dns-12345678.hcp.eastus.azmk8s.io",
		CACertificate:           []byte(testCA),
		BootstrapToken:          bootstrap.NewSecret(testToken),
		TenantID:                "00000000-0000-0000-0000-000000000002",
		SubscriptionID:          testSubscription,
		NodeResourceGroup:       "MC_rg_napkit_eastus",
		Location:                "eastus",
		SubnetID:                testSubnetID,
		VNETGUID:                "a519e60a-cac0-40b2-b883-084477fe6f5c",
		ClusterID:               "12345678",
		KubeletIdentityClientID: "00000000-0000-0000-0000-000000000003",
		Network:                 api.DefaultClusterNetwork(),
		ClusterDNS:              "10.0.0.10",
	}
}

// testImages lists a few versions of every definition the fixtures use, in both galleries' terms.
func testImages() imagefamily.ImageOptions {
	published := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	var avail []imagefamily.AvailableVersion
	for _, def := range []string{"2204gen2containerd", "2204containerd", "2204gen2arm64containerd",
		"2404gen2containerd", "2404containerd", "2404gen2arm64containerd", "2204gen2fipsTLcontainerd",
		"2204gen2TLcontainerd", "V3gen2", "V3", "V3gen2arm64", "V3gen2fips", "windows-2022-containerd-gen2",
		"windows-2022-containerd", "windows-2025-gen2", "windows-2025"} {
		avail = append(avail,
			imagefamily.AvailableVersion{Definition: def, Version: "202605.20.0", PublishedAt: published},
			imagefamily.AvailableVersion{Definition: def, Version: "202606.01.0", PublishedAt: published.Add(24 * time.Hour)},
		)
	}
	return imagefamily.ImageOptions{SIGSubscriptionID: "00000000-0000-0000-0000-00000000000a", Available: avail}
}

// shapes are hand-written VM sizes covering the golden cases.
func shapeD2sV3() imagefamily.NodeShape { // amd64, Gen1 + Gen2
	return imagefamily.NodeShape{SKUName: "Standard_D2s_v3", Arch: api.ArchAMD64, HyperVGenerations: []string{"1", "2"}, VCPUs: 2, MemoryGiB: 8}
}

func shapeD2V2() imagefamily.NodeShape { // amd64, Gen1 only
	return imagefamily.NodeShape{SKUName: "Standard_D2_v2", Arch: api.ArchAMD64, HyperVGenerations: []string{"1"}, VCPUs: 2, MemoryGiB: 7}
}

func shapeD16plds() imagefamily.NodeShape { // arm64
	return imagefamily.NodeShape{SKUName: "Standard_D16plds_v5", Arch: api.ArchARM64, HyperVGenerations: []string{"2"}, VCPUs: 16, MemoryGiB: 32, EphemeralOSDisk: true}
}

func shapeNC24ads() imagefamily.NodeShape { // NVIDIA A100
	return imagefamily.NodeShape{SKUName: "Standard_NC24ads_A100_v4", Arch: api.ArchAMD64, HyperVGenerations: []string{"2"}, VCPUs: 24, MemoryGiB: 220,
		GPU: &imagefamily.GPUInfo{Manufacturer: "nvidia", Count: 1, ManagedDriver: true}, EphemeralOSDisk: true}
}

// nodeClass returns an AKSNodeClass named default with spec.
func nodeClass(spec api.AKSNodeClassSpec) *api.AKSNodeClass {
	return &api.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: spec}
}

func ptr[T any](v T) *T { return &v }

// baseInput is a scriptless Ubuntu node of the seed's general-purpose NodePool.
func baseInput(shape imagefamily.NodeShape) imagefamily.Input {
	return imagefamily.Input{
		Mode:         imagefamily.ModeScriptless,
		NodeClass:    nodeClass(api.AKSNodeClassSpec{ImageFamily: ptr(api.ImageFamilyUbuntu)}),
		Shape:        shape,
		Zone:         "eastus-1",
		CapacityType: api.CapacityTypeOnDemand,
		NodePool:     "general-purpose",
		NodeClaim:    "general-purpose-a1b2c",
		Labels:       map[string]string{api.LabelAKSEBPFDataplane: "cilium"},
		StartupTaints: []corev1.Taint{
			{Key: "node.cilium.io/agent-not-ready", Value: "true", Effect: corev1.TaintEffectNoExecute},
		},
		Cluster: testCluster("1.33.2"),
		Images:  testImages(),
	}
}
