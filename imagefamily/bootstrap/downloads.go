package bootstrap

import (
	"fmt"

	"github.com/napkit/napkit/imagefamily/internal/kubever"
)

// mirror is the AKS download mirror node images fetch binaries from.
const mirror = "https://acs-mirror.azureedge.net"

// Fixed CNI plugin versions the image installs when the network plugin asks for them.
const (
	vnetCNIVersion    = "v1.4.32"
	cniPluginsVersion = "v1.1.1"
)

// Version gates (Kubernetes 1.x minor versions).
const (
	// From 1.34 the kubelet and kubectl binaries are baked into the node image.
	kubeBinaryUntilMinor = 34
	// From 1.30 the ACR credential provider is an out-of-tree binary the node downloads.
	credentialProviderFromMinor = 30
)

// KubeBinaryURL returns the kubelet tarball URL for version and arch, or "" from 1.34 on, when the
// node image already carries the binaries.
func KubeBinaryURL(version, arch string) (string, error) {
	v, err := kubever.Parse(version)
	if err != nil {
		return "", invalid("Kubernetes version", version, "%v", err)
	}
	if v.AtLeast(1, kubeBinaryUntilMinor) {
		return "", nil
	}
	return fmt.Sprintf("%s/kubernetes/v%s/binaries/kubernetes-node-linux-%s.tar.gz", mirror, v, arch), nil
}

// credentialProviderVersion maps a Kubernetes minor version to the credential provider release
// built for it; "" before 1.30.
func credentialProviderVersion(v kubever.Version) string {
	switch {
	case v.AtLeast(1, 33):
		return "1.33.0"
	case v.AtLeast(1, 32):
		return "1.32.5"
	case v.AtLeast(1, 31):
		return "1.31.6"
	case v.AtLeast(1, credentialProviderFromMinor):
		return "1.30.12"
	default:
		return ""
	}
}

// CredentialProviderURL returns the ACR credential provider tarball URL, or "" before 1.30, when the
// kubelet still has the in-tree provider.
func CredentialProviderURL(version, arch string) (string, error) {
	v, err := kubever.Parse(version)
	if err != nil {
		return "", invalid("Kubernetes version", version, "%v", err)
	}
	cp := credentialProviderVersion(v)
	if cp == "" {
		return "", nil
	}
	return fmt.Sprintf("%s/cloud-provider-azure/v%s/binaries/azure-acr-credential-provider-linux-%s-v%s.tar.gz",
		mirror, cp, arch, cp), nil
}

// vnetCNIURL and cniPluginsURL are the CNI plugin tarballs for arch.
func vnetCNIURL(arch string) string {
	return fmt.Sprintf("%s/azure-cni/%s/binaries/azure-vnet-cni-linux-%s-%s.tgz", mirror, vnetCNIVersion, arch, vnetCNIVersion)
}

func cniPluginsURL(arch string) string {
	return fmt.Sprintf("%s/cni-plugins/%s/binaries/cni-plugins-linux-%s-%s.tgz", mirror, cniPluginsVersion, arch, cniPluginsVersion)
}
